package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Limits of the live display.
const (
	liveMaxPending = 5
	liveRedraw     = 100 * time.Millisecond
)

// eventPrinter shows progress: JSON lines with -o json, plain lines when stderr
// is not a terminal, and on a terminal a live block redrawn in place (objects
// applied, what is still not ready and why) under the lines that stay.
type eventPrinter struct {
	mu       sync.Mutex
	out      io.Writer
	json     bool
	terminal bool
	// quiet prints nothing (but --json-events' result).
	quiet   bool
	width   int
	applied int
	deleted int
	pending map[string]string
	// baselines are the objects of EventBaseline events, in order.
	baselines []ports.ObjectRef
	// drawn is the number of lines of the live block on screen.
	drawn int
	// display counts the displays done ended: a redraw scheduled for an
	// earlier one draws nothing.
	display   int
	lastDraw  time.Time
	redraw    *time.Timer
	now       func() time.Time
	afterFunc func(time.Duration, func()) *time.Timer
}

func newEventPrinter(streams genericiooptions.IOStreams, asJSON bool) *eventPrinter {
	p := &eventPrinter{out: streams.ErrOut, json: asJSON, pending: map[string]string{}, width: 80, now: time.Now, afterFunc: time.AfterFunc}
	if asJSON {
		p.out = streams.Out
	} else if w, ok := terminalWidth(streams.ErrOut); ok {
		p.terminal = true
		if w > 0 {
			p.width = w
		}
	}
	return p
}

// print is the Lifecycle's Events callback. The use cases call it from many
// goroutines at once (objects are applied, watched and deleted in parallel), so
// it must be safe for concurrent use: mu serialises the printer's state and
// every write to out, which keeps each event's line whole. result, done and the
// deferred redraw take mu too.
func (p *eventPrinter) print(e action.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Type == action.EventBaseline {
		p.baselines = append(p.baselines, e.Ref)
	}
	switch {
	case p.quiet:
	case p.json:
		b, _ := json.Marshal(e)
		fmt.Fprintf(p.out, "%s\n", b)
	case p.terminal:
		p.live(e)
	default:
		p.plain(e)
	}
}

func (p *eventPrinter) plain(e action.Event) {
	switch e.Type {
	case action.EventStatus:
		if e.Ready != nil && *e.Ready {
			fmt.Fprintf(p.out, "ready: %s\n", e.Object)
		} else {
			fmt.Fprintf(p.out, "waiting: %s: %s\n", e.Object, e.Message)
		}
	case action.EventApplied, action.EventDeleted:
		fmt.Fprintf(p.out, "%s: %s\n", e.Type, e.Object)
	default:
		p.line(e)
	}
}

func (p *eventPrinter) live(e action.Event) {
	switch e.Type {
	case action.EventApplied:
		p.applied++
		// Hundreds of objects go in a second: redraw at most every liveRedraw.
		p.draw(false)
	case action.EventStatus:
		if e.Ready != nil && *e.Ready {
			delete(p.pending, e.Object)
		} else {
			p.pending[e.Object] = e.Message
		}
		p.draw(true)
	case action.EventDeleted:
		p.deleted++
		p.draw(false)
	default:
		p.erase()
		if e.Type == action.EventPhase && e.Object == "" {
			// A new phase: the counts of the last one stay on screen, and
			// it starts its own.
			for _, l := range p.counts() {
				fmt.Fprintln(p.out, l)
			}
			p.applied, p.deleted = 0, 0
			clear(p.pending)
		}
		p.line(e)
		p.draw(true)
	}
}

func (p *eventPrinter) line(e action.Event) {
	msg := e.Message
	if e.Object != "" {
		msg = e.Object + ": " + msg
	}
	if e.Type == action.EventWarning || e.Type == action.EventRecovered {
		msg = strings.ToUpper(e.Type[:1]) + e.Type[1:] + ": " + msg
	}
	fmt.Fprintln(p.out, msg)
}

func (p *eventPrinter) counts() []string {
	var lines []string
	if p.applied > 0 {
		lines = append(lines, fmt.Sprintf("applied %d object(s)", p.applied))
	}
	if p.deleted > 0 {
		lines = append(lines, fmt.Sprintf("deleted %d object(s)", p.deleted))
	}
	return lines
}

// block is what the live display shows now.
func (p *eventPrinter) block() []string {
	lines := p.counts()
	if len(p.pending) > 0 {
		objs := make([]string, 0, len(p.pending))
		for o := range p.pending {
			objs = append(objs, o)
		}
		sort.Strings(objs)
		lines = append(lines, fmt.Sprintf("waiting for %d object(s):", len(objs)))
		for i, o := range objs {
			if i == liveMaxPending {
				lines = append(lines, fmt.Sprintf("  ... and %d more", len(objs)-i))
				break
			}
			line := "  " + o
			if why := p.pending[o]; why != "" {
				line += ": " + why
			}
			lines = append(lines, line)
		}
	}
	for i, l := range lines {
		lines[i] = fitLine(l, p.width)
	}
	return lines
}

// draw replaces the live block; unless forced it waits until liveRedraw has
// passed since the last draw, and then draws what is current.
func (p *eventPrinter) draw(force bool) {
	if !force {
		if wait := liveRedraw - p.now().Sub(p.lastDraw); wait > 0 {
			if p.redraw == nil {
				display := p.display
				p.redraw = p.afterFunc(wait, func() {
					p.mu.Lock()
					defer p.mu.Unlock()
					if p.display == display {
						p.redraw = nil
						p.draw(true)
					}
				})
			}
			return
		}
	}
	if p.redraw != nil {
		p.redraw.Stop()
		p.redraw = nil
	}
	var b strings.Builder
	p.eraseTo(&b)
	lines := p.block()
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	p.drawn = len(lines)
	p.lastDraw = p.now()
	_, _ = io.WriteString(p.out, b.String())
}

// eraseTo writes what removes the live block: up to its first line, then
// clear to the end of the screen.
func (p *eventPrinter) eraseTo(b *strings.Builder) {
	if p.drawn > 0 {
		fmt.Fprintf(b, "\033[%dA\r\033[J", p.drawn)
		p.drawn = 0
	}
}

func (p *eventPrinter) erase() {
	var b strings.Builder
	p.eraseTo(&b)
	_, _ = io.WriteString(p.out, b.String())
}

// done ends the live display, leaving the counts of the last phase: the
// command's result follows.
func (p *eventPrinter) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.terminal {
		return
	}
	p.display++
	if p.redraw != nil {
		p.redraw.Stop()
		p.redraw = nil
	}
	p.erase()
	for _, l := range p.counts() {
		fmt.Fprintln(p.out, l)
	}
	p.applied, p.deleted = 0, 0
	clear(p.pending)
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/kubectl-chart/kubectl-chart/domain/stack"
	"github.com/kubectl-chart/kubectl-chart/domain/stackrun"
)

// writeStackDiff shows a stack plan: per release that changes, a header and
// the diff of each object it changes (Secrets masked unless v says so),
// then one line counting the releases per action.
func writeStackDiff(ctx context.Context, v planView, p *stack.Plan) error {
	for _, id := range stackOrder(p) {
		r := p.Release(id)
		if !r.Action.Changes() {
			continue
		}
		fmt.Fprintf(v.out, "Release %s (%s)\n", r.ID, r.Action)
		if err := v.diff(ctx, r.Plan); err != nil {
			return fmt.Errorf("release %s: %w", r.ID, err)
		}
	}
	_, err := fmt.Fprintln(v.out, stackPlanLine(p))
	return err
}

// stackOrder is the plan's releases in the order they are applied.
func stackOrder(p *stack.Plan) []stack.ID {
	var out []stack.ID
	for _, w := range p.Waves {
		out = append(out, w...)
	}
	return out
}

// stackPlanLine counts the releases per action.
func stackPlanLine(p *stack.Plan) string {
	n := map[stack.Action]int{}
	for _, r := range p.Releases {
		n[r.Action]++
	}
	return fmt.Sprintf("Plan: %d to install, %d to upgrade, %d to uninstall, %d unchanged (%d releases in %d waves).",
		n[stack.ActionInstall], n[stack.ActionUpgrade], n[stack.ActionUninstall], n[stack.ActionUnchanged]+n[stack.ActionAbsent],
		len(p.Releases), len(p.Waves))
}

// writeStackSummary prints per release what applying the stack did.
func writeStackSummary(w io.Writer, s *stackrun.Summary) error {
	t := newTable(0).row("RELEASE", "ACTION", "RESULT")
	for _, r := range s.Results {
		result := string(r.State)
		switch {
		case r.Err != nil:
			result += ": " + safeLine(r.Err.Error())
		case len(r.BlockedBy) > 0:
			names := make([]string, len(r.BlockedBy))
			for i, id := range r.BlockedBy {
				names[i] = id.String()
			}
			result += ": " + strings.Join(names, ", ") + " did not succeed"
		}
		t.row(r.ID, r.Action, result)
	}
	return t.write(w)
}

// safeLine is untrusted text (errors, cluster messages) on one safe line.
func safeLine(s string) string { return humanText(strings.Join(strings.Fields(s), " ")) }

// stackProgress shows how a stack applies: JSON lines on stdout with
// --json-events; on a terminal, lines for releases started and ended under a
// live block of the releases running with their last step, redrawn in
// place; plain lines otherwise. Events come from many goroutines.
type stackProgress struct {
	mu       sync.Mutex
	out      io.Writer
	json     bool
	terminal bool
	// width cuts the live block's lines, so that each takes one row and
	// erasing it erases it all (0: no limit).
	width   int
	running map[stack.ID]string
	drawn   int
}

func newStackProgress(out, errOut io.Writer, asJSON bool) *stackProgress {
	p := &stackProgress{out: errOut, json: asJSON, running: map[stack.ID]string{}}
	if asJSON {
		p.out = out
	} else if w, ok := terminalWidth(errOut); ok {
		p.terminal, p.width = true, w
	}
	return p
}

func (p *stackProgress) print(e stackrun.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		b, _ := json.Marshal(e)
		fmt.Fprintf(p.out, "%s\n", b)
		return
	}
	p.erase()
	switch e.Type {
	case stackrun.EventStart:
		p.running[e.Release] = string(e.Action)
		fmt.Fprintf(p.out, "%s: %s\n", e.Release, e.Action)
	case stackrun.EventProgress:
		msg := e.Detail.Message
		if e.Detail.Object != "" {
			msg = e.Detail.Type + " " + e.Detail.Object + " " + msg
		}
		msg = safeLine(msg)
		if p.terminal {
			p.running[e.Release] = msg
		} else {
			fmt.Fprintf(p.out, "%s: %s\n", e.Release, msg)
		}
	default:
		delete(p.running, e.Release)
		fmt.Fprintf(p.out, "%s: %s\n", e.Release, safeLine(e.Message))
	}
	p.draw()
}

// draw prints the live block: one line per release running.
func (p *stackProgress) draw() {
	if !p.terminal {
		return
	}
	ids := make([]stack.ID, 0, len(p.running))
	for id := range p.running {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].String() < ids[j].String() })
	for _, id := range ids {
		fmt.Fprintln(p.out, fitLine(fmt.Sprintf("  ... %s: %s", id, p.running[id]), p.width))
	}
	p.drawn = len(ids)
}

func (p *stackProgress) erase() {
	for ; p.drawn > 0; p.drawn-- {
		fmt.Fprint(p.out, "\x1b[1A\x1b[2K")
	}
}

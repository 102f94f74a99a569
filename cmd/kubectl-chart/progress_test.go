package main

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
)

// screen is what a terminal shows for the escape sequences the live display
// writes: \n, \r, ESC[nA (cursor up) and ESC[J (erase to the end of screen).
func screen(t *testing.T, out string) []string {
	t.Helper()
	lines := []string{""}
	row, col := 0, 0
	for i := 0; i < len(out); i++ {
		switch c := out[i]; c {
		case '\n':
			row, col = row+1, 0
			if row == len(lines) {
				lines = append(lines, "")
			}
		case '\r':
			col = 0
		case 0x1b:
			end := strings.IndexAny(out[i:], "AJ")
			if end < 0 || out[i+1] != '[' {
				t.Fatalf("unknown escape sequence at %q", out[i:])
			}
			arg := out[i+2 : i+end]
			switch out[i+end] {
			case 'A':
				n, err := strconv.Atoi(arg)
				if err != nil || n > row {
					t.Fatalf("cursor up %q from row %d", arg, row)
				}
				row -= n
			case 'J':
				lines = append(lines[:row], lines[row][:min(col, len(lines[row]))])
			}
			i += end
		default:
			l := lines[row]
			for len(l) < col {
				l += " "
			}
			lines[row] = l[:col] + string(c) + l[min(col+1, len(l)):]
			col++
		}
	}
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// fakeTimers holds the deferred redraw so that the test runs it.
type fakeTimers struct{ pending func() }

func (f *fakeTimers) afterFunc(_ time.Duration, fn func()) *time.Timer {
	f.pending = fn
	return time.NewTimer(time.Hour)
}

func (f *fakeTimers) fire(t *testing.T) {
	t.Helper()
	if f.pending == nil {
		t.Fatal("no redraw was deferred")
	}
	fn := f.pending
	f.pending = nil
	fn()
}

func TestLiveProgress(t *testing.T) {
	var out bytes.Buffer
	timers := &fakeTimers{}
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := &eventPrinter{out: &out, terminal: true, width: 60, pending: map[string]string{},
		now: func() time.Time { return clock }, afterFunc: timers.afterFunc}
	ready := func(b bool) *bool { return &b }
	want := func(step string, lines ...string) {
		t.Helper()
		if got := screen(t, out.String()); strings.Join(got, "\n") != strings.Join(lines, "\n") {
			t.Errorf("%s: screen shows\n%s\nwant\n%s", step, strings.Join(got, "\n"), strings.Join(lines, "\n"))
		}
	}

	p.print(action.Event{Type: action.EventPhase, Message: "installing web revision 1 (3 objects)"})
	for _, o := range []string{"ConfigMap apps/a", "Deployment apps/web", "StatefulSet apps/db"} {
		p.print(action.Event{Type: action.EventApplied, Object: o})
	}
	want("applies within the redraw interval", "installing web revision 1 (3 objects)")
	timers.fire(t)
	want("deferred redraw", "installing web revision 1 (3 objects)", "applied 3 object(s)")

	p.print(action.Event{Type: action.EventPhase, Message: "waiting for 2 object(s) to be ready (timeout 5m0s)"})
	p.print(action.Event{Type: action.EventStatus, Object: "StatefulSet apps/db", Ready: ready(false), Message: "0 of 1 replicas ready"})
	p.print(action.Event{Type: action.EventStatus, Object: "Deployment apps/web", Ready: ready(false), Message: "rollout in progress: 1 of 2 updated replicas are available, and this message is long"})
	want("waiting",
		"installing web revision 1 (3 objects)", "applied 3 object(s)", "waiting for 2 object(s) to be ready (timeout 5m0s)",
		"waiting for 2 object(s):",
		"  Deployment apps/web: rollout in progress: 1 of 2 updat...", // 59 columns: fits 60
		"  StatefulSet apps/db: 0 of 1 replicas ready")

	p.print(action.Event{Type: action.EventWarning, Object: "Service apps/old", Message: "kept because of its resource policy"})
	p.print(action.Event{Type: action.EventStatus, Object: "Deployment apps/web", Ready: ready(true)})
	want("one ready, a warning above the block",
		"installing web revision 1 (3 objects)", "applied 3 object(s)", "waiting for 2 object(s) to be ready (timeout 5m0s)",
		"Warning: Service apps/old: kept because of its resource policy",
		"waiting for 1 object(s):",
		"  StatefulSet apps/db: 0 of 1 replicas ready")

	for i := range 7 {
		p.print(action.Event{Type: action.EventStatus, Object: "Pod apps/p" + strconv.Itoa(i), Ready: ready(false)})
	}
	got := screen(t, out.String())
	if tail := strings.Join(got[len(got)-7:], "\n"); tail != strings.Join([]string{
		"waiting for 8 object(s):", "  Pod apps/p0", "  Pod apps/p1", "  Pod apps/p2", "  Pod apps/p3", "  Pod apps/p4", "  ... and 3 more",
	}, "\n") {
		t.Errorf("many pending: block is\n%s", tail)
	}

	p.done()
	want("done",
		"installing web revision 1 (3 objects)", "applied 3 object(s)", "waiting for 2 object(s) to be ready (timeout 5m0s)",
		"Warning: Service apps/old: kept because of its resource policy")
}

func TestPlainProgress(t *testing.T) {
	var out bytes.Buffer
	p := &eventPrinter{out: &out, pending: map[string]string{}, now: time.Now, afterFunc: time.AfterFunc}
	notReady := false
	p.print(action.Event{Type: action.EventPhase, Message: "upgrading web to revision 2 (1 objects)"})
	p.print(action.Event{Type: action.EventApplied, Object: "ConfigMap apps/a"})
	p.print(action.Event{Type: action.EventStatus, Object: "Deployment apps/web", Ready: &notReady, Message: "0 of 1 ready"})
	p.print(action.Event{Type: action.EventRecovered, Message: "revision 1 was left pending-install"})
	p.done()
	want := "upgrading web to revision 2 (1 objects)\napplied: ConfigMap apps/a\nwaiting: Deployment apps/web: 0 of 1 ready\nRecovered: revision 1 was left pending-install\n"
	if out.String() != want {
		t.Errorf("plain output:\n%s\nwant\n%s", out.String(), want)
	}
	if strings.Contains(out.String(), "\033") {
		t.Error("escape sequences in plain output")
	}
}

// A redraw scheduled before done draws nothing after it: the command's
// result follows the display.
func TestLiveProgressNoRedrawAfterDone(t *testing.T) {
	var out bytes.Buffer
	timers := &fakeTimers{}
	p := &eventPrinter{out: &out, terminal: true, width: 80, pending: map[string]string{},
		now: func() time.Time { return time.Time{} }, afterFunc: timers.afterFunc}
	notReady := false
	p.print(action.Event{Type: action.EventPhase, Message: "deleting 2 object(s)"})
	p.print(action.Event{Type: action.EventStatus, Object: "Pod apps/p", Ready: &notReady, Message: "terminating"})
	p.print(action.Event{Type: action.EventDeleted, Object: "ConfigMap apps/a"})
	pending := timers.pending
	p.done()
	before := out.String()
	pending()
	if out.String() != before {
		t.Errorf("a scheduled redraw wrote after done: %q", strings.TrimPrefix(out.String(), before))
	}
	if got := screen(t, before); strings.Join(got, "\n") != "deleting 2 object(s)\ndeleted 1 object(s)" {
		t.Errorf("screen after done:\n%s", strings.Join(got, "\n"))
	}
}

// The use cases call the Events callback from many goroutines at once (objects
// are applied and watched in parallel): every mode keeps whole lines, and under
// -race the test shows the printer serialises its state and its writes.
func TestProgressConcurrentEvents(t *testing.T) {
	const goroutines, perGoroutine = 8, 50
	notReady, ready := false, true
	events := func(g, i int) action.Event {
		obj := "ConfigMap apps/c" + strconv.Itoa(g) + "-" + strconv.Itoa(i)
		switch i % 5 {
		case 0:
			return action.Event{Type: action.EventApplied, Object: obj}
		case 1:
			return action.Event{Type: action.EventStatus, Object: obj, Ready: &notReady, Message: "not ready"}
		case 2:
			return action.Event{Type: action.EventStatus, Object: obj, Ready: &ready}
		case 3:
			return action.Event{Type: action.EventDeleted, Object: obj}
		}
		return action.Event{Type: action.EventWarning, Object: obj, Message: "kept"}
	}
	tests := map[string]struct {
		printer func(out *bytes.Buffer) *eventPrinter
		check   func(t *testing.T, out string)
	}{
		"json": {
			printer: func(out *bytes.Buffer) *eventPrinter {
				return &eventPrinter{out: out, json: true, pending: map[string]string{}, now: time.Now, afterFunc: time.AfterFunc}
			},
			check: func(t *testing.T, out string) {
				lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				if len(lines) != goroutines*perGoroutine {
					t.Fatalf("%d lines, want %d", len(lines), goroutines*perGoroutine)
				}
				for _, l := range lines {
					if !strings.HasPrefix(l, `{"time":`) || !strings.HasSuffix(l, "}") {
						t.Fatalf("line is not one JSON event: %q", l)
					}
				}
			},
		},
		"plain": {
			printer: func(out *bytes.Buffer) *eventPrinter {
				return &eventPrinter{out: out, pending: map[string]string{}, now: time.Now, afterFunc: time.AfterFunc}
			},
			check: func(t *testing.T, out string) {
				lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				if len(lines) != goroutines*perGoroutine {
					t.Fatalf("%d lines, want %d", len(lines), goroutines*perGoroutine)
				}
				for _, l := range lines {
					if strings.Count(l, "ConfigMap apps/") != 1 {
						t.Fatalf("line is not one event: %q", l)
					}
				}
			},
		},
		"terminal": {
			printer: func(out *bytes.Buffer) *eventPrinter {
				return &eventPrinter{out: out, terminal: true, width: 80, pending: map[string]string{}, now: time.Now, afterFunc: time.AfterFunc}
			},
			check: func(t *testing.T, out string) {
				got := screen(t, out)
				if warnings := len(got) - 2; warnings != goroutines*perGoroutine/5 {
					t.Errorf("screen after done has %d warnings and the counts, want %d warnings:\n%s", warnings, goroutines*perGoroutine/5, strings.Join(got, "\n"))
				}
				want := []string{"applied 80 object(s)", "deleted 80 object(s)"}
				if tail := got[len(got)-2:]; strings.Join(tail, "\n") != strings.Join(want, "\n") {
					t.Errorf("counts after done: %q, want %q", tail, want)
				}
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			p := tc.printer(&out)
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for i := range perGoroutine {
						p.print(events(g, i))
					}
				})
			}
			wg.Wait()
			p.done()
			p.mu.Lock()
			defer p.mu.Unlock()
			tc.check(t, out.String())
		})
	}
}

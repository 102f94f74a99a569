package main

import (
	"bytes"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/stack"
	"github.com/kubectl-chart/kubectl-chart/domain/stackrun"
)

func TestStackProgress(t *testing.T) {
	web := stack.ID{Namespace: "prod", Name: "web"}
	events := []stackrun.Event{
		{Release: web, Type: stackrun.EventStart, Action: stack.ActionUpgrade},
		{Release: web, Type: stackrun.EventProgress, Detail: &action.Event{Type: action.EventApplied, Object: "ConfigMap prod/web"}},
		{Release: web, Type: stackrun.EventDone, Message: "applied\x1b]0;evil\a"},
	}
	tests := map[string]struct {
		terminal bool
		width    int
		want     string
	}{
		"plain lines": {
			want: "prod/web: upgrade\nprod/web: applied ConfigMap prod/web\nprod/web: applied]0;evil\n",
		},
		"live block on a terminal": {
			terminal: true,
			want: "prod/web: upgrade\n  ... prod/web: upgrade\n" +
				"\x1b[1A\x1b[2K  ... prod/web: applied ConfigMap prod/web\n" +
				"\x1b[1A\x1b[2Kprod/web: applied]0;evil\n",
		},
		"live block cut to the terminal's width": {
			terminal: true, width: 24,
			want: "prod/web: upgrade\n  ... prod/web: upgrade\n" +
				"\x1b[1A\x1b[2K  ... prod/web: appl...\n" +
				"\x1b[1A\x1b[2Kprod/web: applied]0;evil\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			p := &stackProgress{out: &buf, terminal: tc.terminal, width: tc.width, running: map[stack.ID]string{}}
			for _, e := range events {
				p.print(e)
			}
			if buf.String() != tc.want {
				t.Errorf("got %q\nwant %q", buf.String(), tc.want)
			}
		})
	}
}

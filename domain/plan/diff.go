package plan

import (
	"fmt"
	"io"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Change is one object of a plan as it is before and after: the live object
// and the server's dry-run result (or the desired object without one), both
// as YAML without the metadata the server keeps for itself.
type Change struct {
	Step   Step
	Before []byte
	After  []byte
}

// Header names the object and its action: "Deployment prod/web (update)".
func (c Change) Header() string {
	h := fmt.Sprintf("%s (%s)", c.Step.Ref, c.Step.Action)
	if c.Step.Note != "" {
		h += ": " + c.Step.Note
	}
	return h
}

// FileName names the object as kubectl diff names its files:
// group.version.Kind.namespace.name.
func (c Change) FileName() string {
	r := c.Step.Ref
	gv := strings.ReplaceAll(r.APIVersion, "/", ".")
	if !strings.Contains(r.APIVersion, "/") {
		gv = "v1"
		if r.APIVersion != "" {
			gv = r.APIVersion
		}
	}
	parts := []string{gv, r.Kind}
	if r.Namespace != "" {
		parts = append(parts, r.Namespace)
	}
	return strings.Join(append(parts, r.Name), ".")
}

// Changes lists the objects the plan changes, in the order it changes them.
// Secret values are masked unless showSecrets: changed and unchanged values
// stay told apart.
func (p *Plan) Changes(showSecrets bool) ([]Change, error) {
	var out []Change
	for _, s := range p.Steps() {
		if !s.Action.Changes() {
			continue
		}
		before, after := Normalize(s.Live), s.Result
		if after == nil {
			after = s.Desired
		}
		after = Normalize(after)
		if s.Action == ActionDelete {
			after = nil
		}
		if s.Action == ActionCreate {
			before = nil
		}
		if !showSecrets && s.Ref.Kind == "Secret" && s.Ref.APIVersion == "v1" {
			before, after = maskSecret(before, after)
		}
		c := Change{Step: s}
		var err error
		if c.Before, err = toYAML(before); err != nil {
			return nil, fmt.Errorf("show %s: %w", s.Ref, err)
		}
		if c.After, err = toYAML(after); err != nil {
			return nil, fmt.Errorf("show %s: %w", s.Ref, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func toYAML(o ports.Object) ([]byte, error) {
	if o == nil {
		return nil, nil
	}
	return yaml.Marshal(map[string]any(o))
}

// maskSecret hides the values of a Secret's data and stringData, as kubectl
// diff does: "***" where a value is the same on both sides, "*** (before)" and
// "*** (after)" where it changed.
func maskSecret(before, after ports.Object) (ports.Object, ports.Object) {
	b, a := copyTop(before), copyTop(after)
	for _, field := range []string{"data", "stringData"} {
		bm, _ := b[field].(map[string]any)
		am, _ := a[field].(map[string]any)
		nb, na := map[string]any{}, map[string]any{}
		for k, bv := range bm {
			av, ok := am[k]
			switch {
			case !ok:
				nb[k] = "***"
			case fmt.Sprint(av) == fmt.Sprint(bv):
				nb[k], na[k] = "***", "***"
			default:
				nb[k], na[k] = "*** (before)", "*** (after)"
			}
		}
		for k := range am {
			if _, ok := bm[k]; !ok {
				na[k] = "***"
			}
		}
		if bm != nil {
			b[field] = nb
		}
		if am != nil {
			a[field] = na
		}
	}
	return b, a
}

func copyTop(o ports.Object) ports.Object {
	if o == nil {
		return nil
	}
	out := make(ports.Object, len(o))
	for k, v := range o {
		out[k] = v
	}
	return out
}

// Colours of a unified diff on a terminal.
const (
	colourReset  = "\x1b[0m"
	colourHeader = "\x1b[1m"
	colourHunk   = "\x1b[36m"
	colourDel    = "\x1b[31m"
	colourAdd    = "\x1b[32m"
)

// UnifiedOptions shape a unified diff.
type UnifiedOptions struct {
	// Context is the number of unchanged lines around each change.
	Context int
	Colour  bool
}

// WriteUnified writes a change as a unified diff under its header.
func WriteUnified(w io.Writer, c Change, opts UnifiedOptions) error {
	paint := func(colour, s string) string {
		if !opts.Colour {
			return s
		}
		return colour + s + colourReset
	}
	var b strings.Builder
	b.WriteString(paint(colourHeader, c.Header()) + "\n")
	before, after := lines(c.Before), lines(c.After)
	fmt.Fprintf(&b, "%s\n%s\n", paint(colourDel, "--- live/"+c.FileName()), paint(colourAdd, "+++ planned/"+c.FileName()))
	m := difflib.NewMatcherWithJunk(before, after, false, nil)
	for _, group := range m.GetGroupedOpCodes(opts.Context) {
		first, last := group[0], group[len(group)-1]
		fmt.Fprintf(&b, "%s\n", paint(colourHunk, fmt.Sprintf("@@ -%s +%s @@", hunkRange(first.I1, last.I2), hunkRange(first.J1, last.J2))))
		for _, op := range group {
			switch op.Tag {
			case 'e':
				for _, l := range before[op.I1:op.I2] {
					b.WriteString(" " + l)
				}
			case 'r', 'd', 'i':
				for _, l := range before[op.I1:op.I2] {
					b.WriteString(paint(colourDel, "-"+strings.TrimSuffix(l, "\n")) + "\n")
				}
				for _, l := range after[op.J1:op.J2] {
					b.WriteString(paint(colourAdd, "+"+strings.TrimSuffix(l, "\n")) + "\n")
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// lines splits text after each newline; the last line ends with one too.
func lines(text []byte) []string {
	if len(text) == 0 {
		return nil
	}
	out := strings.SplitAfter(string(text), "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	} else {
		out[len(out)-1] += "\n"
	}
	return out
}

// hunkRange is a unified diff's "start,length" of lines [from, to).
func hunkRange(from, to int) string {
	n := to - from
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", from)
	case 1:
		return fmt.Sprintf("%d", from+1)
	}
	return fmt.Sprintf("%d,%d", from+1, n)
}

package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// helm-diff's names of what happens to an object, which its simple, template,
// json and structured outputs print.
const (
	changeAdd              = "ADD"
	changeRemove           = "REMOVE"
	changeModify           = "MODIFY"
	changeOwnership        = "OWNERSHIP"
	changeModifySuppressed = "MODIFY_SUPPRESSED"
)

// reportEntry is one object that changes, as the report shows it.
type reportEntry struct {
	plan.Change
	change string
	// suppressed: its kind is one --suppress names; its diff is not shown.
	suppressed bool
}

// diffReport shows a plan's changes as helm-diff's --output and its
// suppression flags ask.
type diffReport struct {
	out     io.Writer
	flags   *helmDiffFlags
	context int
	colour  bool
}

func (r diffReport) write(p *plan.Plan, showSecrets bool) error {
	entries, err := r.entries(p, showSecrets)
	if err != nil {
		return err
	}
	switch r.flags.format {
	case "simple":
		r.simple(entries)
		return nil
	case "template", "json":
		return r.template(entries)
	case "structured":
		return r.structured(entries)
	}
	for _, e := range entries {
		if err := r.unified(e); err != nil {
			return err
		}
	}
	writeProblems(r.out, p)
	return nil
}

// entries are the plan's changes, Secrets decoded with --show-secrets-decoded
// and the lines --suppress-output-line-regex matches left out.
func (r diffReport) entries(p *plan.Plan, showSecrets bool) ([]reportEntry, error) {
	changes, err := p.Changes(showSecrets || r.flags.showSecretsDecoded)
	if err != nil {
		return nil, err
	}
	out := make([]reportEntry, 0, len(changes))
	for _, c := range changes {
		e := reportEntry{Change: c, change: changeOf(c.Step.Action), suppressed: slices.Contains(r.flags.suppress, c.Step.Ref.Kind)}
		if r.flags.showSecretsDecoded && isSecret(c.Step.Ref) {
			if e.Before, err = decodeSecret(c.Before); err != nil {
				return nil, fmt.Errorf("show %s: %w", c.Step.Ref, err)
			}
			if e.After, err = decodeSecret(c.After); err != nil {
				return nil, fmt.Errorf("show %s: %w", c.Step.Ref, err)
			}
		}
		if len(r.flags.suppressRE) > 0 {
			e.Before, e.After = dropLines(e.Before, r.flags.suppressRE), dropLines(e.After, r.flags.suppressRE)
			if e.change == changeModify && bytes.Equal(e.Before, e.After) {
				e.change = changeModifySuppressed
			}
		}
		out = append(out, e)
	}
	return out, nil
}

func changeOf(a plan.Action) string {
	switch a {
	case plan.ActionCreate:
		return changeAdd
	case plan.ActionDelete:
		return changeRemove
	case plan.ActionAdopt:
		return changeOwnership
	}
	return changeModify
}

func isSecret(ref ports.ObjectRef) bool { return ref.Kind == "Secret" && ref.APIVersion == "v1" }

// decodeSecret shows a Secret's data decoded, as stringData.
func decodeSecret(text []byte) ([]byte, error) {
	if len(text) == 0 {
		return text, nil
	}
	var o map[string]any
	if err := yaml.Unmarshal(text, &o); err != nil {
		return nil, err
	}
	data, _ := o["data"].(map[string]any)
	if len(data) == 0 {
		return text, nil
	}
	plain, _ := o["stringData"].(map[string]any)
	if plain == nil {
		plain = map[string]any{}
	}
	for k, v := range data {
		s, _ := v.(string)
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("data.%s is not base64: %w", k, err)
		}
		plain[k] = string(b)
	}
	delete(o, "data")
	o["stringData"] = plain
	return yaml.Marshal(o)
}

// dropLines leaves out the lines that any of res matches.
func dropLines(text []byte, res []*regexp.Regexp) []byte {
	if len(text) == 0 {
		return text
	}
	var b bytes.Buffer
	for _, l := range splitLines(text) {
		if !slices.ContainsFunc(res, func(re *regexp.Regexp) bool { return re.MatchString(strings.TrimSuffix(l, "\n")) }) {
			b.WriteString(l)
		}
	}
	return b.Bytes()
}

// splitLines splits text after each newline; the last line ends with one too.
func splitLines(text []byte) []string {
	out := strings.SplitAfter(strings.TrimSuffix(string(text), "\n")+"\n", "\n")
	return out[:len(out)-1]
}

// unified writes an entry as the plan view does, or its header alone with why
// its diff is not shown.
func (r diffReport) unified(e reportEntry) error {
	switch {
	case e.suppressed:
		_, err := fmt.Fprintf(r.out, "%s\n  (changes of %s objects are suppressed)\n", e.Header(), e.Step.Ref.Kind)
		return err
	case e.change == changeModifySuppressed:
		_, err := fmt.Fprintf(r.out, "%s\n  (changed; every changed line is suppressed by --suppress-output-line-regex)\n", e.Header())
		return err
	}
	return plan.WriteUnified(r.out, e.Change, plan.UnifiedOptions{Context: r.context, Colour: r.colour})
}

// helmDiffKey names an object as helm-diff does: "NAMESPACE, NAME, KIND (GROUP)",
// the API version's group, or "v1" for the core group.
func helmDiffKey(ref ports.ObjectRef) string {
	return fmt.Sprintf("%s, %s, %s (%s)", ref.Namespace, ref.Name, ref.Kind, apiBase(ref.APIVersion))
}

func apiBase(apiVersion string) string {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i]
	}
	return apiVersion
}

// simple writes a line per object and the counts, as helm-diff's --output simple.
func (r diffReport) simple(entries []reportEntry) {
	says := map[string]string{
		changeAdd: "to be added.", changeRemove: "to be removed.", changeModify: "to be changed.",
		changeOwnership: "to change ownership.", changeModifySuppressed: "has changed, but diff is empty after suppression.",
	}
	counts := map[string]int{}
	for _, e := range entries {
		fmt.Fprintf(r.out, "%s %s\n", helmDiffKey(e.Step.Ref), says[e.change])
		counts[e.change]++
	}
	fmt.Fprintf(r.out, "Plan: %d to add, %d to change, %d to destroy, %d to change ownership.\n",
		counts[changeAdd], counts[changeModify], counts[changeRemove], counts[changeOwnership])
}

// templateEntry is what helm-diff hands its --output template: one per object.
type templateEntry struct {
	API       string `json:"api"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Change    string `json:"change"`
}

// template executes $HELM_DIFF_TPL on the entries; without one, and for
// --output json of records, it writes them as a JSON array.
func (r diffReport) template(entries []reportEntry) error {
	data := make([]templateEntry, 0, len(entries))
	for _, e := range entries {
		ref := e.Step.Ref
		data = append(data, templateEntry{API: apiBase(ref.APIVersion), Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name, Change: e.change})
	}
	if r.flags.format == "json" || r.flags.template == "" {
		b, err := json.MarshalIndent(data, "", "  ")
		if err != nil {
			return fmt.Errorf("encode changes: %w", err)
		}
		_, err = r.out.Write(append(b, '\n'))
		return err
	}
	t, err := template.New(filepath.Base(r.flags.template)).Funcs(template.FuncMap{
		// last reports whether i is the index of a's last element.
		"last": func(i int, a []templateEntry) bool { return i == len(a)-1 },
	}).ParseFiles(r.flags.template)
	if err != nil {
		return fmt.Errorf("$HELM_DIFF_TPL: %w", err)
	}
	if err := t.Execute(r.out, data); err != nil {
		return fmt.Errorf("$HELM_DIFF_TPL: %w", err)
	}
	_, err = io.WriteString(r.out, "\n")
	return err
}

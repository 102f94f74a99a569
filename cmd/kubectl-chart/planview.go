package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// ExternalDiffEnv names a diff program, as for kubectl diff.
const ExternalDiffEnv = "KUBECTL_EXTERNAL_DIFF"

// externalDiffArg is what kubectl diff accepts as an argument of the program.
var externalDiffArg = regexp.MustCompile(`^[a-zA-Z0-9-=]+$`)

// planView shows plans: per-object unified diffs, the plan itself as JSON or
// YAML, or a summary.
type planView struct {
	out          io.Writer
	context      int
	showSecrets  bool
	colour       bool
	externalDiff string
}

// diff shows what the plan changes, with the external diff program when one is set.
func (v planView) diff(ctx context.Context, p *plan.Plan) error {
	changes, err := p.Changes(v.showSecrets)
	if err != nil {
		return err
	}
	if v.externalDiff != "" {
		return v.runExternal(ctx, changes)
	}
	for _, c := range changes {
		if err := plan.WriteUnified(v.out, c, plan.UnifiedOptions{Context: v.context, Colour: v.colour}); err != nil {
			return err
		}
	}
	writeProblems(v.out, p)
	return nil
}

// runExternal writes the objects before and after into two directories and
// runs the diff program on them, as kubectl diff does.
func (v planView) runExternal(ctx context.Context, changes []plan.Change) error {
	fields := strings.Fields(v.externalDiff)
	for _, a := range fields[1:] {
		if !externalDiffArg.MatchString(a) {
			return fmt.Errorf("$%s: argument %q is not allowed (letters, digits, '-' and '=' only)", ExternalDiffEnv, a)
		}
	}
	tmp, err := os.MkdirTemp("", "kubectl-chart-diff-")
	if err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	live, planned := filepath.Join(tmp, "LIVE"), filepath.Join(tmp, "PLANNED")
	for _, d := range []string{live, planned} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fmt.Errorf("diff: %w", err)
		}
	}
	for _, c := range changes {
		if err := os.WriteFile(filepath.Join(live, c.FileName()), c.Before, 0o600); err != nil {
			return fmt.Errorf("diff: %w", err)
		}
		if err := os.WriteFile(filepath.Join(planned, c.FileName()), c.After, 0o600); err != nil {
			return fmt.Errorf("diff: %w", err)
		}
	}
	cmd := exec.CommandContext(ctx, fields[0], append(fields[1:], live, planned)...) //nolint:gosec // the user's own diff program, as kubectl runs it
	cmd.Stdout, cmd.Stderr = v.out, v.out
	err = cmd.Run()
	var exit *exec.ExitError
	// diff(1) exits 1 when the inputs differ.
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("run $%s (%s): %w", ExternalDiffEnv, v.externalDiff, err)
	}
	return nil
}

// print writes the plan as JSON or YAML. Secret values are masked unless
// showSecrets; the revision's payload (chart, values, manifest) is left out:
// --save-plan writes the whole plan.
func (v planView) print(p *plan.Plan, format string) error {
	shown := *p
	if shown.Record != nil {
		rec := *shown.Record
		rec.Chart, rec.Config, rec.Manifest, rec.Hooks = nil, nil, "", nil
		shown.Record = &rec
	}
	if !v.showSecrets {
		shown.CRDs = maskSteps(shown.CRDs)
		shown.Stages = append([]plan.Stage(nil), shown.Stages...)
		for i := range shown.Stages {
			shown.Stages[i].Steps = maskSteps(shown.Stages[i].Steps)
		}
	}
	b, err := json.MarshalIndent(shown, "", "  ")
	if err != nil {
		return fmt.Errorf("encode plan: %w", err)
	}
	if format == "yaml" {
		if b, err = yaml.JSONToYAML(b); err != nil {
			return fmt.Errorf("encode plan: %w", err)
		}
	} else {
		b = append(b, '\n')
	}
	_, err = v.out.Write(b)
	return err
}

// maskSteps hides the values of Secrets in steps.
func maskSteps(steps []plan.Step) []plan.Step {
	out := append([]plan.Step(nil), steps...)
	for i, s := range out {
		if s.Ref.Kind != "Secret" || s.Ref.APIVersion != "v1" {
			continue
		}
		out[i].Live, out[i].Desired, out[i].Result = maskSecretValues(s.Live), maskSecretValues(s.Desired), maskSecretValues(s.Result)
	}
	return out
}

func maskSecretValues(o ports.Object) ports.Object {
	if o == nil {
		return nil
	}
	c := make(ports.Object, len(o))
	for k, v := range o {
		c[k] = v
	}
	for _, field := range []string{"data", "stringData"} {
		if m, ok := o[field].(map[string]any); ok {
			masked := make(map[string]any, len(m))
			for k := range m {
				masked[k] = "***"
			}
			c[field] = masked
		}
	}
	return c
}

// writeSummary writes the counts of a plan per action and names what would
// be replaced or deleted.
func writeSummary(w io.Writer, p *plan.Plan) {
	counts := p.Counts()
	fmt.Fprintf(w, "PLAN: %s %s/%s: %d to create, %d to update, %d to replace, %d to adopt, %d to delete, %d unchanged\n",
		p.Operation, p.Release.Namespace, p.Release.Name,
		counts[plan.ActionCreate], counts[plan.ActionUpdate], counts[plan.ActionReplace], counts[plan.ActionAdopt],
		counts[plan.ActionDelete], counts[plan.ActionNoOp])
	for _, s := range p.Steps() {
		if s.Action == plan.ActionReplace || s.Action == plan.ActionDelete {
			fmt.Fprintf(w, "  %s: %s\n", s.Action, s.Ref)
		}
	}
	writeProblems(w, p)
}

func writeProblems(w io.Writer, p *plan.Plan) {
	for _, pr := range p.Problems {
		if pr.Ref == (ports.ObjectRef{}) {
			fmt.Fprintf(w, "PROBLEM (%s): %s\n", pr.Type, pr.Message)
			continue
		}
		fmt.Fprintf(w, "PROBLEM (%s) %s: %s\n", pr.Type, pr.Ref, pr.Message)
	}
}

package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
)

// helmDiffFlags are the helm-diff plugin's flags and environment, so that the
// command lines tools build for `helm diff` (helmfile diff and apply) run
// here unchanged. README.md's diff section says what each one does here.
type helmDiffFlags struct {
	flags *pflag.FlagSet
	// getenv reads $HELM_DIFF_*, through the settings.
	getenv func(string) string

	allowUnreleased    bool
	suppressSecrets    bool
	showSecretsDecoded bool
	suppress           []string
	suppressLines      []string
	colour             bool
	// format is a helm-diff --output the plan view does not have: "simple",
	// "template", "structured" or "dyff"; "" is the unified diff.
	format      string
	kubeVersion string
	apiVersions []string
	// Accepted for helm-diff's command line; README.md says why they change nothing.
	stripTrailingCR, threeWayMerge, normalizeManifests, includeTests bool
	includeCRDs, disableValidation                                   bool
	findRenames                                                      float32

	// hooks are how the operation's hooks differ from the current ones (diff_hooks.go).
	hooks []plan.Step

	suppressRE []*regexp.Regexp
	// template is $HELM_DIFF_TPL, the file --output template executes.
	template string
}

// helmDiffFormats are the --output values that print a report of changes.
var helmDiffFormats = []string{"diff", "simple", "template", "structured", "dyff"}

// addFlags adds the flags helm-diff has on every subcommand, and takes
// helm-diff's formats out of --output, which the command added.
func (h *helmDiffFlags) addFlags(fs *pflag.FlagSet, s *settings) {
	h.flags, h.getenv = fs, s.plugins.getenv
	if o := fs.Lookup("output"); o != nil {
		o.Value = &helmOutputValue{Value: o.Value, format: &h.format}
	}
	fs.BoolVarP(&h.suppressSecrets, "suppress-secrets", "q", false, "do not show the changes of Secrets (their objects are still listed)")
	fs.BoolVar(&h.showSecretsDecoded, "show-secrets-decoded", false, "show the values of Secrets, decoded from base64 (implies --show-secrets)")
	fs.StringArrayVar(&h.suppress, "suppress", nil, "do not show the changes of objects of this kind (can specify multiple); they are still listed")
	fs.StringArrayVar(&h.suppressLines, "suppress-output-line-regex", nil, "leave out of the diff the lines that match this regular expression (can specify multiple)")
	fs.BoolVar(&h.colour, "color", false, "colour the diff even when stdout is not a terminal ($HELM_DIFF_COLOR=true|false); --no-color wins")
	fs.BoolVar(&h.stripTrailingCR, "strip-trailing-cr", false, "accepted for helm-diff's command line: objects are compared as parsed, line endings never differ")
	fs.Float32VarP(&h.findRenames, "find-renames", "D", 0, "accepted for helm-diff's command line: objects are matched by kind, namespace and name; a renamed object is deleted and created")
	fs.BoolVar(&h.includeTests, "include-tests", false, "also show the changes of test hooks (install and upgrade show those of the other hooks)")
	fs.BoolVar(&h.normalizeManifests, "normalize-manifests", false, "accepted for helm-diff's command line: objects are always compared as parsed, so style never shows")
}

// helmOutputValue is --output, a helm-diff format kept apart: the operation's
// own check of -o, which runs first, sees only its formats.
type helmOutputValue struct {
	pflag.Value
	format *string
}

func (v *helmOutputValue) Set(s string) error {
	if slices.Contains(helmDiffFormats, s) {
		*v.format = s
		return v.Value.Set("")
	}
	*v.format = ""
	return v.Value.Set(s)
}

// addRenderFlags adds the flags of `helm diff upgrade`, which renders a
// chart; $HELM_DIFF_IGNORE_UNKNOWN_FLAGS=true makes it ignore unknown flags,
// as helm-diff does for wrappers of helm upgrade.
func (h *helmDiffFlags) addRenderFlags(cmd *cobra.Command, s *settings) {
	cmd.FParseErrWhitelist.UnknownFlags = s.plugins.getenv != nil && s.plugins.getenv("HELM_DIFF_IGNORE_UNKNOWN_FLAGS") == "true"
	fs := cmd.Flags()
	fs.BoolVar(&h.allowUnreleased, "allow-unreleased", false, "a release that does not exist diffs as an install (as --install)")
	fs.StringVar(&h.kubeVersion, "kube-version", "", "checked as a Kubernetes version, else unused: the chart renders with the cluster's version (Helm's default with --dry-run=client)")
	fs.StringArrayVarP(&h.apiVersions, "api-versions", "a", nil, "accepted for helm-diff's command line: the chart renders with the cluster's API versions (Helm's defaults with --dry-run=client)")
	fs.BoolVar(&h.threeWayMerge, "three-way-merge", false, "accepted for helm-diff's command line: the diff is always of the live objects against the server's dry-run result")
	fs.BoolVar(&h.includeCRDs, "include-crds", false, "accepted for helm-diff's command line: the chart's CRDs are always part of the diff (see --crds, --skip-crds)")
	fs.BoolVar(&h.disableValidation, "disable-validation", false, "accepted for helm-diff's command line: objects the cluster does not serve yet are shown as problems, not errors")
}

// resolve reads helm-diff's environment for the flags not given, takes a
// helm-diff --output out of *output (which then keeps only json or yaml, the
// plan itself), and checks what the flags say.
func (h *helmDiffFlags) resolve(output *string, context *int) error {
	changed := func(name string) bool { return h.flags != nil && h.flags.Changed(name) }
	env := func(name string) string {
		if h.getenv == nil {
			return ""
		}
		return h.getenv(name)
	}
	if !changed("output") {
		if v := strings.TrimSpace(env("HELM_DIFF_OUTPUT")); v != "" {
			*output = v
		}
	}
	if !changed("context") {
		if n, err := strconv.Atoi(env("HELM_DIFF_OUTPUT_CONTEXT")); err == nil {
			*context = n
		}
	}
	// helm-diff's -1 (its default) shows whole objects.
	if *context == -1 {
		*context = math.MaxInt32
	}
	for _, f := range helmDiffFormats {
		if *output == f {
			h.format, *output = f, ""
		}
	}
	if h.format == "diff" || h.format == "dyff" {
		h.format = ""
	}
	h.template = env("HELM_DIFF_TPL")
	if h.suppressSecrets {
		h.suppress = append(h.suppress, "Secret")
	}
	for _, s := range h.suppressLines {
		re, err := regexp.Compile(s)
		if err != nil {
			return fmt.Errorf("--suppress-output-line-regex %q: %w", s, err)
		}
		h.suppressRE = append(h.suppressRE, re)
	}
	if h.findRenames < 0 || h.findRenames > 1 {
		return fmt.Errorf("--find-renames must be between 0 and 1, not %v", h.findRenames)
	}
	if h.kubeVersion != "" {
		if _, err := capabilities.ParseKubeVersionFor(dialect.Default, h.kubeVersion); err != nil {
			return capabilities.InvalidKubeVersionError(h.kubeVersion, err)
		}
	}
	return nil
}

// colours reports whether to colour: --no-color, else --color, else
// $HELM_DIFF_COLOR, else only on a terminal that is not dumb.
func (h *helmDiffFlags) colours(noColour bool, out io.Writer) bool {
	switch {
	case noColour:
		return false
	case h.colour:
		return true
	}
	if h.getenv != nil {
		if v, err := strconv.ParseBool(h.getenv("HELM_DIFF_COLOR")); err == nil {
			return v
		}
		if h.getenv("TERM") == "dumb" {
			return false
		}
	}
	return isTerminal(out)
}

// reports reports whether the changes are shown by the report (diff_report.go)
// rather than by the plan view as before.
func (h *helmDiffFlags) reports() bool {
	return h.format != "" || len(h.suppress) > 0 || len(h.suppressRE) > 0 || h.showSecretsDecoded
}

// planInstall previews an install, without the cluster with --dry-run=client.
func (h *helmDiffFlags) planInstall(ctx context.Context, lifecycle func() (*action.Lifecycle, error), req action.InstallRequest) (*plan.Plan, error) {
	if req.DryRun == action.DryRunClient {
		return h.clientPlan(ctx, req, plan.OpInstall)
	}
	req.DryRun = action.DryRunNone
	lc, err := lifecycle()
	if err != nil {
		return nil, err
	}
	p, err := lc.PreviewInstall(ctx, req)
	if err != nil {
		return nil, err
	}
	return p, h.hookSteps(ctx, lc.Store, p)
}

// planUpgrade previews an upgrade: --allow-unreleased is --install, and
// --dry-run=client diffs as an install without reading the cluster, as helm-diff does.
func (h *helmDiffFlags) planUpgrade(ctx context.Context, lifecycle func() (*action.Lifecycle, error), req action.UpgradeRequest) (*plan.Plan, error) {
	if req.DryRun == action.DryRunClient {
		return h.clientPlan(ctx, action.InstallRequest{ReleaseSpec: req.ReleaseSpec, SkipCRDs: req.SkipCRDs, CRDs: req.CRDs}, plan.OpUpgrade)
	}
	req.DryRun = action.DryRunNone
	req.Install = req.Install || h.allowUnreleased
	lc, err := lifecycle()
	if err != nil {
		return nil, err
	}
	p, err := lc.PreviewUpgrade(ctx, req)
	if err != nil {
		return nil, err
	}
	return p, h.hookSteps(ctx, lc.Store, p)
}

// clientPlan renders the chart without the cluster (with Helm's default
// capabilities) and plans every object of it as created.
func (h *helmDiffFlags) clientPlan(ctx context.Context, req action.InstallRequest, cmd plan.Operation) (*plan.Plan, error) {
	req.DryRun = action.DryRunClient
	p, err := (&action.Planner{}).PlanInstall(ctx, req, nil, action.PlanOptions{Command: cmd})
	if err != nil {
		return nil, err
	}
	objs, err := manifestObjects(p.Record.Manifest, req.Namespace)
	if err != nil {
		return nil, err
	}
	steps := make([]plan.Step, 0, len(objs))
	for _, o := range objs {
		steps = append(steps, plan.Step{Ref: o.ref(), Action: plan.ActionCreate, Desired: o.Object})
	}
	p.Stages = []plan.Stage{{Name: "objects", Steps: steps}}
	return p, h.hookSteps(ctx, nil, p)
}

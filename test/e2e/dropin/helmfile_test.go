//go:build e2e

package dropin

import (
	"slices"
	"strings"
	"testing"
)

// TestHelmfile runs helmfile v1.8.0 through a release's life with Helm and
// with us as `helm`: a chart from a repository on 127.0.0.1, two local charts
// (one depending on the repository's), needs across namespaces, hooks,
// selectors, a release installed then removed and one never installed.
func TestHelmfile(t *testing.T) {
	for _, d := range dialects() {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			helmfile := toolPeer(t, "helmfile")
			realHelm := helmPeer(t, d.version)
			repo := serveRepo(t, realHelm)
			p := newPair(t, d, realHelm, nil, map[string]string{"helmfile": helmfile},
				[]string{"NS_APP", "NS_DATA"}, "helmfile", []string{"REPO_URL=" + repo})
			p.run(t, helmfileSteps())
		})
	}
}

func helmfileSteps() []step {
	hf := func(name string, m mode, env []string, args ...string) step {
		// One release at a time: helmfile interleaves what concurrent helms print.
		if !slices.Contains(args, "repos") && !slices.Contains(args, "list") {
			args = append(args, "--concurrency", "1")
		}
		return step{name: name, program: "helmfile", dir: ".", args: args, env: env, mode: m}
	}
	offline := func(s step) step { s.offline = true; return s }
	// After the first sync: other values, the cache resized and extra removed.
	with := func(mode string) []string { return []string{"MODE=" + mode, "CACHE_SIZE=3", "EXTRA_INSTALLED=false"} }
	apply := hf("apply", helmFails, with("applied"), "apply")
	apply.check = func(t *testing.T, objects string) {
		if !strings.Contains(objects, "greeting: applied") {
			t.Errorf("after helmfile apply with us, web's ConfigMap does not say 'applied':\n%s", objects)
		}
	}
	return []step{
		offline(hf("repos", same, nil, "repos")),
		offline(hf("deps", same, nil, "deps")),
		offline(hf("template", same, nil, "template")),
		offline(hf("lint", same, nil, "lint")),
		hf("sync-install", same, nil, "sync"),
		offline(hf("list", same, nil, "list")),
		hf("status", same, nil, "status"),
		hf("sync-upgrade", same, with("upgraded"), "sync"),
		hf("selector", same, with("selected"), "-l", "tier=frontend", "sync"),
		hf("needs-order", same, with("needs"), "-l", "name=web", "sync", "--include-transitive-needs"),
		hf("test", same, with("needs"), "-l", "name=web", "test"),
		offline(hf("write-values", same, with("written"), "write-values", "--output-file-template", "written/{{ .Release.Name }}.yaml")),
		hf("sync-by-helm-after", backToHelm, with("back"), "sync"),
		hf("destroy", same, with("back"), "destroy"),
		// Last, since Helm fails them: the sides part here. From nothing
		// installed, diff and apply take helm-diff's --allow-unreleased path.
		hf("diff", helmFails, with("diffed"), "diff"),
		apply,
		hf("sync-by-helm-after-apply", backToHelmSucceeds, with("final"), "sync"),
	}
}

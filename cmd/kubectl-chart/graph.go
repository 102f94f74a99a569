package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
)

// Graph formats of --graph.
const (
	graphText = "text"
	graphDot  = "dot"
)

// addGraphFlag adds --graph[=text|dot].
func addGraphFlag(fs *pflag.FlagSet, graph *string, what string) {
	fs.StringVar(graph, "graph", "", what+` as the stages it goes in, in order (sequenced charts, HIP-0025: resource groups and subcharts, and the waits between them): "text" (--graph alone) or "dot" (Graphviz)`)
	fs.Lookup("graph").NoOptDefVal = graphText
}

func validateGraph(graph string) error {
	switch graph {
	case "", graphText, graphDot:
		return nil
	}
	return fmt.Errorf("invalid --graph %q: want text or dot", graph)
}

// graphView prints a plan's stages.
type graphView struct {
	stages []plan.Stage
	// crds are applied before the stages.
	crds       []plan.Step
	sequencing *plan.Sequencing
	// actions shows what each step does (diff); template only names objects.
	actions bool
}

func (g graphView) write(w io.Writer, format string) error {
	if format == graphDot {
		return g.dot(w)
	}
	return g.text(w)
}

func (g graphView) stepLine(s plan.Step) string {
	if g.actions {
		return fmt.Sprintf("%s (%s)", s.Ref, s.Action)
	}
	return s.Ref.String()
}

// batchName names a stage's batch: "web/db: resource groups database, queue".
func batchName(st plan.Stage) string {
	switch {
	case st.Chart == "":
		return ""
	case len(st.Groups) == 1:
		return st.Chart + ": resource group " + st.Groups[0]
	case len(st.Groups) > 1:
		return st.Chart + ": resource groups " + strings.Join(st.Groups, ", ")
	}
	return st.Chart + ": objects outside resource groups"
}

// waitText says what a stage waits for before the next.
func waitText(st plan.Stage) string {
	if !st.Wait {
		return ""
	}
	what := "ready"
	if st.Name == "delete" {
		what = "gone"
	}
	if st.ReadinessTimeout != "" {
		return fmt.Sprintf("then wait until %s (at most %s)", what, st.ReadinessTimeout)
	}
	return "then wait until " + what
}

func (g graphView) text(w io.Writer) error {
	if g.sequencing != nil {
		fmt.Fprintf(w, "sequenced (HIP-0025): %s\n", g.sequencing.Reason)
		for _, warn := range g.sequencing.Warnings {
			fmt.Fprintf(w, "warning: %s\n", humanText(warn))
		}
	} else {
		fmt.Fprintln(w, "not sequenced: stages in Helm's kind order")
	}
	n := 0
	if len(g.crds) > 0 {
		n++
		fmt.Fprintf(w, "STAGE %d  CRDs from crds/  then wait until established\n", n)
		for _, s := range g.crds {
			fmt.Fprintf(w, "  %s\n", g.stepLine(s))
		}
	}
	for _, st := range g.stages {
		n++
		head := fmt.Sprintf("STAGE %d  [%s]", n, st.Name)
		if b := batchName(st); b != "" {
			head += "  " + b
		}
		if wt := waitText(st); wt != "" {
			head += "  " + wt
		}
		fmt.Fprintln(w, head)
		for _, s := range st.Steps {
			fmt.Fprintf(w, "  %s\n", g.stepLine(s))
		}
	}
	return nil
}

func dotQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

func (g graphView) dot(w io.Writer) error {
	fmt.Fprintln(w, "digraph stages {")
	fmt.Fprintln(w, `  rankdir=TB;`)
	fmt.Fprintln(w, `  node [shape=box, fontname="monospace"];`)
	type node struct {
		id, label, batch, wait string
	}
	var nodes []node
	if len(g.crds) > 0 {
		lines := []string{"CRDs"}
		for _, s := range g.crds {
			lines = append(lines, g.stepLine(s))
		}
		nodes = append(nodes, node{label: strings.Join(lines, "\n"), wait: "established"})
	}
	for _, st := range g.stages {
		lines := []string{st.Name}
		for _, s := range st.Steps {
			lines = append(lines, g.stepLine(s))
		}
		wait := ""
		if st.Wait {
			wait = "ready"
			if st.Name == "delete" {
				wait = "gone"
			}
		}
		nodes = append(nodes, node{label: strings.Join(lines, "\n"), batch: batchName(st), wait: wait})
	}
	for i := range nodes {
		nodes[i].id = fmt.Sprintf("s%d", i+1)
	}
	// Stages of one batch are drawn together.
	for i := 0; i < len(nodes); {
		j := i + 1
		for j < len(nodes) && nodes[j].batch == nodes[i].batch {
			j++
		}
		if nodes[i].batch != "" {
			fmt.Fprintf(w, "  subgraph cluster_%d {\n    label=%s;\n", i+1, dotQuote(nodes[i].batch))
			for _, n := range nodes[i:j] {
				fmt.Fprintf(w, "    %s [label=%s];\n", n.id, dotQuote(n.label))
			}
			fmt.Fprintln(w, "  }")
		} else {
			for _, n := range nodes[i:j] {
				fmt.Fprintf(w, "  %s [label=%s];\n", n.id, dotQuote(n.label))
			}
		}
		i = j
	}
	for i := 0; i+1 < len(nodes); i++ {
		if nodes[i].wait != "" {
			fmt.Fprintf(w, "  %s -> %s [label=%s];\n", nodes[i].id, nodes[i+1].id, dotQuote(nodes[i].wait))
		} else {
			fmt.Fprintf(w, "  %s -> %s;\n", nodes[i].id, nodes[i+1].id)
		}
	}
	fmt.Fprintln(w, "}")
	return nil
}

package main

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// docsOptions are the flags of the hidden docs command, Helm's: the
// commands' documentation (or bash completion) written into a directory.
type docsOptions struct {
	dir             string
	docType         string
	generateHeaders bool
}

// NewCmdDocs builds the hidden `docs`, as Helm's.
func NewCmdDocs() *cobra.Command {
	o := &docsOptions{}
	cmd := &cobra.Command{
		Use:   "docs",
		Short: "generate documentation as markdown or man pages",
		Long: `
Generate documentation files for Helm.

This command can generate documentation for Helm in the following formats:

- Markdown
- Man pages

It can also generate bash autocompletions.
`,
		Hidden: true,
		Args:   noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.Run(cmd.Root())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.dir, "dir", "./", "directory to which documentation is written")
	fs.StringVar(&o.docType, "type", "markdown", "the type of documentation to generate (markdown, man, bash)")
	fs.BoolVar(&o.generateHeaders, "generate-headers", false, "generate standard headers for markdown files")
	return cmd
}

// Run writes root's documentation into o.dir, one file a command.
func (o *docsOptions) Run(root *cobra.Command) error {
	switch o.docType {
	case "markdown", "mdown", "md":
		if o.generateHeaders {
			return doc.GenMarkdownTreeCustom(root, o.dir, markdownHeader, func(s string) string { return s })
		}
		return doc.GenMarkdownTree(root, o.dir)
	case "man":
		return doc.GenManTree(root, &doc.GenManHeader{Title: strings.ToUpper(root.Name()), Section: "1"}, o.dir)
	case "bash":
		return root.GenBashCompletionFile(filepath.Join(o.dir, "completions.bash"))
	}
	return fmt.Errorf("unknown doc type %q. Try 'markdown' or 'man'", o.docType)
}

// markdownHeader is the front matter of a command's page: its title, the
// file's name in words, each capitalised.
func markdownHeader(filename string) string {
	name := strings.TrimSuffix(filepath.Base(filename), path.Ext(filename))
	words := strings.Fields(strings.ReplaceAll(name, "_", " "))
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return fmt.Sprintf("---\ntitle: %q\n---\n\n", strings.Join(words, " "))
}

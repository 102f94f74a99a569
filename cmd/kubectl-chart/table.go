package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/kubectl-chart/kubectl-chart/domain/redact"
)

// table prints rows as every table of both Helms does (list, history, repo
// list, search, plugin list, dependency list: their table library, with
// go-runewidth v0.0.9 measuring text as theirs does): each cell padded with
// spaces to its column's width, the last column too; columns separated by a
// tab, which scripts split on; a cell wider than maxWidth cut to end in
// "...". A cell of several lines is first cut to its column's width as a
// whole, then printed one line per row line.
type table struct {
	maxWidth int // 0: columns as wide as their widest cell
	rows     [][]string
}

// newTable starts a table whose columns are at most maxWidth wide (0: no limit).
func newTable(maxWidth uint) *table { return &table{maxWidth: int(maxWidth)} }

// row adds a row of cells printed with %v, without the terminal controls
// Helm would print (release records, indexes and plugins are not to be
// trusted); newlines stay, making a cell of several lines as in Helm.
func (t *table) row(cells ...any) *table {
	r := make([]string, len(cells))
	for i, c := range cells {
		r[i] = redact.Terminal(fmt.Sprint(c))
	}
	t.rows = append(t.rows, r)
	return t
}

// write prints the table and a newline: a table of no rows is one newline.
func (t *table) write(w io.Writer) error {
	if _, err := io.WriteString(w, t.String()+"\n"); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// String is the table without its final newline.
func (t *table) String() string {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			w := 0
			for _, line := range strings.Split(c, "\n") {
				w = max(w, runewidth.StringWidth(line))
			}
			if t.maxWidth > 0 && w > t.maxWidth {
				w = t.maxWidth
			}
			widths[i] = max(widths[i], w)
		}
	}
	var lines []string
	for _, r := range t.rows {
		cellLines := make([][]string, len(r))
		n := 0
		for i, c := range r {
			cellLines[i] = strings.Split(fitCell(c, widths[i]), "\n")
			n = max(n, len(cellLines[i]))
		}
		for x := range n {
			parts := make([]string, len(r))
			for i := range r {
				switch {
				case x < len(cellLines[i]):
					parts[i] = fitCell(cellLines[i][x], widths[i])
				case widths[i] > 1:
					parts[i] = strings.Repeat(" ", widths[i])
				default:
					// A cell with fewer lines than its row is blank: one
					// space at least, as Helm's library pads " ".
					parts[i] = " "
				}
			}
			lines = append(lines, strings.Join(parts, "\t"))
		}
	}
	return strings.Join(lines, "\n")
}

// fitCell pads s with spaces to width n or cuts it to end in "...": the
// runes up to and including the one reaching n-3 columns are kept, so a
// wide rune may make the cell wider than n, as in Helm. Width 0 leaves s.
func fitCell(s string, n int) string {
	if n == 0 {
		return s
	}
	w := runewidth.StringWidth(s)
	switch {
	case w == n:
		return s
	case w < n:
		return s + strings.Repeat(" ", n-w)
	}
	var b strings.Builder
	w = 0
	for _, r := range s {
		b.WriteRune(r)
		rw := runewidth.RuneWidth(r)
		if w+rw >= n-3 {
			break
		}
		w += rw
	}
	b.WriteString("...")
	return b.String()
}

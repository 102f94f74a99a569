package main

import (
	"os"

	"golang.org/x/term"
)

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalWidth is w's width in columns when w is a terminal (0 when its size
// cannot be read); ok is false when w is not a terminal.
func terminalWidth(w any) (width int, ok bool) {
	if !isTerminal(w) {
		return 0, false
	}
	if cols, _, err := term.GetSize(int(w.(*os.File).Fd())); err == nil && cols > 0 {
		return cols, true
	}
	return 0, true
}

// fitLine cuts a line of a live block to one row of a terminal width columns
// wide (0: no limit): a line that wraps would break the count of lines to
// erase before the next draw.
func fitLine(line string, width int) string {
	if r := []rune(line); width > 0 && len(r) > width-1 {
		return string(r[:max(width-4, 1)]) + "..."
	}
	return line
}

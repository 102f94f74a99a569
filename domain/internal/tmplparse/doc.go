// Package tmplparse parses templates as text/template/parse does, into its trees,
// in about two thirds of its time: built with the Go release it is a copy of (Go
// 1.26, lex.go and parse.go, marked where they differ), it is that package's lexer
// and parser changed where the time went; built with any other release it is
// text/template/parse itself (fallback.go), so that a parser of one release never
// meets an executor of another.
package tmplparse

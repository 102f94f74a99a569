package strvals

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// scanner reads the input rune by rune. An invalid UTF-8 byte decodes to
// U+FFFD, one byte at a time, exactly as Helm's bytes.Buffer.ReadRune does,
// so keys and values carry the replacement character in its place.
type scanner struct {
	src  string
	pos  int
	last int // width of the rune just read, so one step back is possible
}

func (s *scanner) next() (rune, bool) {
	if s.pos >= len(s.src) {
		s.last = 0
		return 0, false
	}
	r, w := utf8.DecodeRuneInString(s.src[s.pos:])
	s.pos += w
	s.last = w
	return r, true
}

// back undoes the last next; it is a no-op after end of input.
func (s *scanner) back() {
	s.pos -= s.last
	s.last = 0
}

func (s *scanner) rest() string { return s.src[s.pos:] }

func (s *scanner) skip(n int) {
	s.pos = min(s.pos+n, len(s.src))
	s.last = 0
}

// until reads up to the first rune of stops and returns the text before it
// and the stop rune; the stop itself is consumed. With escapes, a backslash
// makes the following rune literal. At end of input it returns what it read
// and io.EOF; a trailing lone backslash is dropped, as in Helm.
func (s *scanner) until(stops string, escapes bool) (string, rune, error) {
	var b strings.Builder
	for {
		r, ok := s.next()
		if !ok {
			return b.String(), 0, io.EOF
		}
		switch {
		case strings.ContainsRune(stops, r):
			return b.String(), r, nil
		case escapes && r == '\\':
			if r, ok = s.next(); !ok {
				return b.String(), 0, io.EOF
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
}

// blankToComma skips white space and reports whether the value slot is empty:
// input ended, or a comma (consumed) closed it. Anything else is left unread.
func (s *scanner) blankToComma() bool {
	for {
		r, ok := s.next()
		switch {
		case !ok, r == ',':
			return true
		case !unicode.IsSpace(r):
			s.back()
			return false
		}
	}
}

package strvals

import (
	"strconv"
	"strings"
)

// inferValue is --set's typing: true/false/null in any letter case, base-10
// integers as int64, anything else the text itself. Floats are never inferred,
// and a leading zero keeps the text ("0123", "0x1F"), "0" aside, so version
// strings and octal-looking ids survive.
func inferValue(raw string) (any, error) {
	switch {
	case strings.EqualFold(raw, "true"):
		return true, nil
	case strings.EqualFold(raw, "false"):
		return false, nil
	case strings.EqualFold(raw, "null"):
		return nil, nil
	case raw == "0":
		return int64(0), nil
	}
	if raw != "" && raw[0] != '0' {
		if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
			return n, nil
		}
	}
	return raw, nil
}

// verbatimValue is --set-string's typing: none.
func verbatimValue(raw string) (any, error) { return raw, nil }

package strvals

import (
	"errors"
	"fmt"
)

// The texts below are Helm's, as users see them in "failed parsing --set
// data: ..." messages.

func errUnterminatedList() error { return errors.New("list must terminate with '}'") }

func errNoValue(key string) error { return fmt.Errorf("key %q has no value", key) }

func errTrailingComma(key string) error {
	return fmt.Errorf("key %q has no value (cannot end with ,)", key)
}

func errEmptyMap(key string) error { return fmt.Errorf("key map %q has no value", key) }

func errTooDeep() error {
	return fmt.Errorf("value name nested level is greater than maximum supported nested level of %d", MaxNestedNameLevel)
}

func errBadIndex(err error) error { return fmt.Errorf("error parsing index: %w", err) }

func errNegativeIndex(i int) error { return fmt.Errorf("negative %d index not allowed", i) }

func errIndexTooLarge(i int) error {
	return fmt.Errorf("index of %d is greater than maximum supported index of %d", i, MaxIndex)
}

// errTrailingIndexData quotes the runes one by one, because Helm formats a
// []rune with %q.
func errTrailingIndexData(text string) error {
	return fmt.Errorf("unexpected data at end of array index: %q", []rune(text))
}

// errNotA reproduces what Helm reports when a path runs into a value of
// another kind (a=1,a.b=2): its failed type assertion panics and the panic is
// recovered into this text.
func errNotA(got any, want string) error {
	have := "nil"
	if got != nil {
		have = fmt.Sprintf("%T", got)
	}
	return fmt.Errorf("unable to parse key: interface conversion: interface {} is %s, not %s", have, want)
}

// errNilMap is Helm's recovered panic for storing into a nil map.
func errNilMap() error { return errors.New("unable to parse key: assignment to entry in nil map") }

const (
	mapTypeName  = "map[string]interface {}"
	listTypeName = "[]interface {}"
)

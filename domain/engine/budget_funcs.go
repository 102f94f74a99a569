package engine

import (
	"math"
	"strings"
	"text/template"
)

// elementBytes is what one element of a list of numbers counts against the budget.
const elementBytes = 8

// meterFuncs replaces the functions that build a value as large as an argument
// says (repeat 3000000000, until 100000000) with ones that refuse, before
// building it, a value larger than the budget allows.
func meterFuncs(f template.FuncMap, m *meter) {
	repeat := f["repeat"].(func(int, string) string)
	f["repeat"] = func(count int, s string) (string, error) {
		n := float64(max(count, 0)) * float64(len(s))
		if err := m.preallocated("repeat", n, n); err != nil {
			return "", err
		}
		return repeat(count, s), nil
	}
	for _, name := range []string{"randAlpha", "randAlphaNum", "randAscii", "randNumeric"} {
		fn := f[name].(func(int) string)
		f[name] = func(count int) (string, error) {
			// The string is built in a slice of runes.
			if err := m.preallocated(name, float64(count), float64(count)*4); err != nil {
				return "", err
			}
			return fn(count), nil
		}
	}
	randBytes := f["randBytes"].(func(int) (string, error))
	f["randBytes"] = func(count int) (string, error) {
		if err := m.preallocated("randBytes", float64(count)*4/3, float64(count)); err != nil {
			return "", err
		}
		return randBytes(count)
	}
	for _, name := range []string{"indent", "nindent"} {
		fn := f[name].(func(int, string) string)
		f[name] = func(spaces int, s string) (string, error) {
			lines := strings.Count(s, "\n") + 1
			// The padding is built first, on its own.
			if err := m.preallocated(name, float64(len(s))+float64(lines)*float64(max(spaces, 0)), float64(spaces)); err != nil {
				return "", err
			}
			return fn(spaces, s), nil
		}
	}
	until := f["until"].(func(int) []int)
	f["until"] = func(count int) ([]int, error) {
		step := 1
		if count < 0 {
			step = -1
		}
		if err := m.value("until", size(untilStepLen(0, count, step)*elementBytes)); err != nil {
			return nil, err
		}
		return until(count), nil
	}
	untilStep := f["untilStep"].(func(int, int, int) []int)
	f["untilStep"] = func(start, stop, step int) ([]int, error) {
		if err := m.value("untilStep", size(untilStepLen(start, stop, step)*elementBytes)); err != nil {
			return nil, err
		}
		return untilStep(start, stop, step), nil
	}
	seq := f["seq"].(func(...int) string)
	f["seq"] = func(params ...int) (string, error) {
		if err := m.value("seq", size(seqLen(params)*elementBytes)); err != nil {
			return "", err
		}
		return seq(params...), nil
	}
}

// maxAlloc is the largest allocation Go attempts (2^48-1 bytes on 64-bit
// Linux); asked for more, it fails at once with "makeslice: len out of range".
const maxAlloc = 1<<48 - 1

// preallocated counts a value of n bytes that fn builds into one allocation
// of alloc bytes made before anything else. An allocation Go refuses at once
// is left to fn, which then fails at once as Helm's does, with the runtime's
// words; anything smaller is held to the budget.
func (m *meter) preallocated(fn string, n, alloc float64) error {
	if alloc > maxAlloc {
		return nil
	}
	return m.value(fn, size(n))
}

// size is a size in bytes counted in floating point, which cannot overflow as
// the product of two arguments can, saturated at math.MaxInt64.
func size(f float64) int64 {
	if f >= math.MaxInt64 || math.IsNaN(f) {
		return math.MaxInt64
	}
	return int64(f)
}

// untilStepLen is how many numbers sprig's untilStep(start, stop, step)
// makes: from start towards stop by step, stop excluded.
func untilStepLen(start, stop, step int) float64 {
	switch {
	case stop < start && step < 0:
		return math.Ceil((float64(start) - float64(stop)) / -float64(step))
	case stop > start && step > 0:
		return math.Ceil((float64(stop) - float64(start)) / float64(step))
	}
	return 0
}

// seqLen is how many numbers sprig's seq prints for its parameters. It goes
// through untilStep with an end one past the last number, computed in int as
// sprig computes it: past math.MaxInt64 it wraps, and sprig prints nothing.
func seqLen(params []int) float64 {
	switch len(params) {
	case 1:
		start, end, inc := 1, params[0], 1
		if end < start {
			inc = -1
		}
		return untilStepLen(start, end+inc, inc)
	case 2:
		start, end, inc := params[0], params[1], 1
		if end < start {
			inc = -1
		}
		return untilStepLen(start, end+inc, inc)
	case 3:
		start, step, end, inc := params[0], params[1], params[2], 1
		if end < start {
			inc = -1
			if step > 0 {
				return 0
			}
		}
		return untilStepLen(start, end+inc, step)
	}
	return 0
}

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
		if err := m.value("repeat", int64(max(count, 0))*int64(len(s))); err != nil {
			return "", err
		}
		return repeat(count, s), nil
	}
	for _, name := range []string{"randAlpha", "randAlphaNum", "randAscii", "randNumeric"} {
		fn := f[name].(func(int) string)
		f[name] = func(count int) (string, error) {
			if err := m.value(name, int64(count)); err != nil {
				return "", err
			}
			return fn(count), nil
		}
	}
	randBytes := f["randBytes"].(func(int) (string, error))
	f["randBytes"] = func(count int) (string, error) {
		if err := m.value("randBytes", int64(count)*4/3); err != nil {
			return "", err
		}
		return randBytes(count)
	}
	for _, name := range []string{"indent", "nindent"} {
		fn := f[name].(func(int, string) string)
		f[name] = func(spaces int, s string) (string, error) {
			lines := int64(strings.Count(s, "\n") + 1)
			if err := m.value(name, int64(len(s))+lines*int64(max(spaces, 0))); err != nil {
				return "", err
			}
			return fn(spaces, s), nil
		}
	}
	until := f["until"].(func(int) []int)
	f["until"] = func(count int) ([]int, error) {
		if err := m.value("until", abs(int64(count))*elementBytes); err != nil {
			return nil, err
		}
		return until(count), nil
	}
	untilStep := f["untilStep"].(func(int, int, int) []int)
	f["untilStep"] = func(start, stop, step int) ([]int, error) {
		if err := m.value("untilStep", steps(start, stop, step)*elementBytes); err != nil {
			return nil, err
		}
		return untilStep(start, stop, step), nil
	}
	seq := f["seq"].(func(...int) string)
	f["seq"] = func(params ...int) (string, error) {
		if err := m.value("seq", seqLen(params)*elementBytes); err != nil {
			return "", err
		}
		return seq(params...), nil
	}
}

func abs(n int64) int64 {
	if n == math.MinInt64 {
		return math.MaxInt64
	}
	if n < 0 {
		return -n
	}
	return n
}

// steps is how many numbers go from start towards stop by step (an upper bound).
func steps(start, stop, step int) int64 {
	if step == 0 {
		return 0
	}
	return abs(int64(stop)-int64(start))/abs(int64(step)) + 1
}

// seqLen is how many numbers seq prints for its parameters (an upper bound).
func seqLen(params []int) int64 {
	switch len(params) {
	case 1:
		return abs(int64(params[0])) + 1
	case 2:
		return steps(params[0], params[1], 1)
	case 3:
		return steps(params[0], params[2], params[1])
	}
	return 0
}

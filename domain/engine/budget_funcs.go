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
		if err := m.value("repeat", size(float64(max(count, 0))*float64(len(s)))); err != nil {
			return "", err
		}
		return repeat(count, s), nil
	}
	for _, name := range []string{"randAlpha", "randAlphaNum", "randAscii", "randNumeric"} {
		fn := f[name].(func(int) string)
		f[name] = func(count int) (string, error) {
			if err := m.value(name, size(float64(count))); err != nil {
				return "", err
			}
			return fn(count), nil
		}
	}
	randBytes := f["randBytes"].(func(int) (string, error))
	f["randBytes"] = func(count int) (string, error) {
		if err := m.value("randBytes", size(float64(count)*4/3)); err != nil {
			return "", err
		}
		return randBytes(count)
	}
	for _, name := range []string{"indent", "nindent"} {
		fn := f[name].(func(int, string) string)
		f[name] = func(spaces int, s string) (string, error) {
			lines := strings.Count(s, "\n") + 1
			if err := m.value(name, size(float64(len(s))+float64(lines)*float64(max(spaces, 0)))); err != nil {
				return "", err
			}
			return fn(spaces, s), nil
		}
	}
	until := f["until"].(func(int) []int)
	f["until"] = func(count int) ([]int, error) {
		if err := m.value("until", size(math.Abs(float64(count))*elementBytes)); err != nil {
			return nil, err
		}
		return until(count), nil
	}
	untilStep := f["untilStep"].(func(int, int, int) []int)
	f["untilStep"] = func(start, stop, step int) ([]int, error) {
		if err := m.value("untilStep", size(steps(start, stop, step)*elementBytes)); err != nil {
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

// size is a size in bytes counted in floating point, which cannot overflow as
// the product of two arguments can, saturated at math.MaxInt64.
func size(f float64) int64 {
	if f >= math.MaxInt64 || math.IsNaN(f) {
		return math.MaxInt64
	}
	return int64(f)
}

// steps is how many numbers go from start towards stop by step (an upper bound).
func steps(start, stop, step int) float64 {
	if step == 0 {
		return 0
	}
	return math.Abs(float64(stop)-float64(start))/math.Abs(float64(step)) + 1
}

// seqLen is how many numbers seq prints for its parameters (an upper bound).
func seqLen(params []int) float64 {
	switch len(params) {
	case 1:
		return math.Abs(float64(params[0])) + 1
	case 2:
		return steps(params[0], params[1], 1)
	case 3:
		return steps(params[0], params[2], params[1])
	}
	return 0
}

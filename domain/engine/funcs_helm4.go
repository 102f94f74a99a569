package engine

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"text/template"
	"time"
)

// helm4Funcs are the template functions Helm 4 added to Helm 3's set: must*
// variants of the serialisers that fail the render instead of printing nothing (or
// an error text), and duration helpers. mustToJson replaces sprig's function of the
// same name; both fail with the encoder's error.
func helm4Funcs() template.FuncMap {
	return template.FuncMap{
		"mustToYaml":           mustToYAML,
		"mustToJson":           mustToJSON,
		"mustToToml":           mustToTOML,
		"mustToDuration":       asDuration,
		"durationSeconds":      durationOr0(time.Duration.Seconds),
		"durationMilliseconds": durationOr0(time.Duration.Milliseconds),
		"durationMicroseconds": durationOr0(time.Duration.Microseconds),
		"durationNanoseconds":  durationOr0(time.Duration.Nanoseconds),
		"durationMinutes":      durationOr0(time.Duration.Minutes),
		"durationHours":        durationOr0(time.Duration.Hours),
		"durationDays":         durationOr0(func(d time.Duration) float64 { return d.Hours() / 24 }),
		"durationWeeks":        durationOr0(func(d time.Duration) float64 { return d.Hours() / 24 / 7 }),
		"durationRoundTo":      durationBy(time.Duration.Round),
		"durationTruncateTo":   durationBy(time.Duration.Truncate),
	}
}

// durationOr0 makes a template function that reads its argument as a duration and
// converts it; an argument that is no duration gives 0.
func durationOr0[T int64 | float64](conv func(time.Duration) T) func(any) T {
	return func(v any) T {
		d, err := asDuration(v)
		if err != nil {
			return 0
		}
		return conv(d)
	}
}

// durationBy makes a template function that rounds or truncates a duration to a
// multiple of another: 0 when the first is no duration, the first unchanged when
// the second is none.
func durationBy(op func(time.Duration, time.Duration) time.Duration) func(any, any) time.Duration {
	return func(v, m any) time.Duration {
		d, err := asDuration(v)
		if err != nil {
			return 0
		}
		mul, err := asDuration(m)
		if err != nil {
			return d
		}
		return op(d, mul)
	}
}

// Bounds of a duration counted in seconds.
const (
	maxSeconds      = int64(math.MaxInt64 / int64(time.Second))
	minSeconds      = int64(math.MinInt64 / int64(time.Second))
	maxSecondsFloat = float64(math.MaxInt64) / float64(time.Second)
	minSecondsFloat = float64(math.MinInt64) / float64(time.Second)
)

// asDuration reads a template value as a duration: a time.Duration; a string that
// time.ParseDuration reads ("1h30m") or that is a number of seconds ("2.5"); or a
// number of seconds of any integer or float type. Helm 4's mustToDuration.
func asDuration(v any) (time.Duration, error) {
	switch x := v.(type) {
	case time.Duration:
		return x, nil
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return 0, errors.New("empty duration")
		}
		if d, err := time.ParseDuration(s); err == nil {
			return d, nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return secondsFloat(f)
		}
		return 0, fmt.Errorf("could not parse duration %q", x)
	case nil:
		return 0, errors.New("invalid duration")
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s := rv.Int()
		if s > maxSeconds || s < minSeconds {
			return 0, fmt.Errorf("duration seconds overflow: %d", s)
		}
		return time.Duration(s) * time.Second, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		s := rv.Uint()
		if s > uint64(maxSeconds) {
			return 0, fmt.Errorf("duration seconds overflow: %d", s)
		}
		return time.Duration(int64(s)) * time.Second, nil
	case reflect.Float32, reflect.Float64:
		return secondsFloat(rv.Float())
	}
	return 0, fmt.Errorf("unsupported duration type %T", v)
}

func secondsFloat(s float64) (time.Duration, error) {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return 0, fmt.Errorf("invalid duration seconds: %v", s)
	}
	if s > maxSecondsFloat || s < minSecondsFloat {
		return 0, fmt.Errorf("duration seconds overflow: %v", s)
	}
	ns := s * float64(time.Second)
	if ns > float64(math.MaxInt64) || ns < float64(math.MinInt64) {
		return 0, fmt.Errorf("duration nanoseconds overflow: %v", ns)
	}
	return time.Duration(ns), nil
}

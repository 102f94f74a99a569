package generator

// Edge arguments, as Go template literals or expressions, by the kind a function expects.
// Values-file keys (.Values.*) are written by values.go with YAML corners of their own.
var (
	strArgs = []string{
		`""`, `"a"`, `"héllo 世界"`, `"1e3"`, `"0x1F"`, `"007"`, `"-1"`, `"true"`, `"yes"`, `"null"`,
		`"~"`, `"2024-01-02"`, `" a b "`, `"a,b,c"`, `"a.b-c_d"`, `"line1\nline2"`, `"key: value"`,
		`"[1, 2]"`, `"{\"a\": 1}"`, `"a = 1"`, `"{{ .Release.Name }}"`, `"AbC dEf"`, `"ß"`,
		`.Values.str`, `.Values.numstr`, `.Values.boolstr`, `.Release.Name`, `.Release.Namespace`,
		`.Chart.Name`, `.Chart.Version`, `.Template.Name`, `.Template.BasePath`,
	}
	intArgs = []string{
		`0`, `1`, `-1`, `3`, `64`, `9223372036854775807`, `-9223372036854775808`, `1.5`, `-0.5`,
		`.Values.int`, `.Values.huge`, `.Values.float`, `.Values.zero`, `.Values.negative`,
		`.Release.Revision`,
	}
	listArgs = []string{
		`(list)`, `(list 1 "a" nil)`, `(list "b" "a" "b")`, `(list 3 1 2)`, `(list (list 1) (dict "a" 1))`,
		`.Values.list`, `.Values.emptyList`, `.Values.mixed`, `(splitList "," "a,,b")`,
	}
	mapArgs = []string{
		`(dict)`, `(dict "a" 1 "b" (list 1 2))`, `(dict "" nil "z" "y")`, `.Values.map`, `.Values.nested`,
		`.Values.emptyMap`, `.Values.merged`, `.Values.global`, `.Release`, `.Capabilities.KubeVersion`,
	}
	anyArgs = []string{
		`nil`, `.Values.nul`, `.Values.missing`, `.Values.bool`, `.Values.date`, `.Values.tagged`,
		// Not `.` or `$`: printed with %v they show .Capabilities' address, which differs
		// from run to run (a random output, left out by construction).
		`.Values.binary`, `true`, `false`, `.Values`,
	}
	regexArgs  = []string{`"a+"`, `"^[a-z]+$"`, `"(\\d)"`, `"["`, `""`, `"."`, `"é"`}
	semverArgs = []string{`"1.2.3"`, `">=1.0.0"`, `"^1.2"`, `"~1.2.3-0"`, `"v1.20.0-gke.1"`, `"1.x"`, `"bogus"`, `.Capabilities.KubeVersion.Version`, `.Chart.Version`}
	dateArgs   = []string{`0`, `1700000000`, `-1`, `(toDate "2006-01-02" "2024-02-29")`, `(toDate "2006-01-02" "bogus")`, `(toDate "2006-01-02" .Values.date)`, `(toDate "2006-01-02T15:04:05Z07:00" "2024-01-02T03:04:05Z")`}
	fmtArgs    = []string{`"2006-01-02"`, `"15:04:05 MST"`, `""`, `"Mon Jan 2"`, `"%d"`}
)

type kind int

const (
	kStr kind = iota
	kInt
	kList
	kMap
	kAny
	kRegex
	kSemver
	kDate
	kFmt
)

func (k kind) pool() []string {
	switch k {
	case kStr:
		return strArgs
	case kInt:
		return intArgs
	case kList:
		return listArgs
	case kMap:
		return mapArgs
	case kRegex:
		return regexArgs
	case kSemver:
		return semverArgs
	case kDate:
		return dateArgs
	case kFmt:
		return fmtArgs
	default:
		return anyArgs
	}
}

package runner

import (
	"strings"
	"testing"
)

func TestMaskVolatile(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"klog header":    {"I1205 02:31:09.584003   20812 warnings.go:107] \"Warning: x\"\n", "I<klog> warnings.go:107] \"Warning: x\"\n"},
		"generated":      {"NAME: chart-1796437903\n", "NAME: chart-<generated>\n"},
		"ansic":          {"LAST DEPLOYED: Sat Dec  5 02:23:31 2026\n", "LAST DEPLOYED: <time>\n"},
		"record labels":  {"modifiedAt=1796428545", "modifiedAt=<unix time>"},
		"json labels":    {`"labels":{"modifiedAt":"1796441520"}`, `"labels":{"modifiedAt":"<unix time>"}`},
		"yaml labels":    {"labels:\n  modifiedAt: \"1796463722\"\n", "labels:\n  modifiedAt: \"<unix time>\"\n"},
		"status groups":  {"RESOURCES:\n==> v1/Service\nNAME\ns\n\n==> v1/ConfigMap\nNAME\nc\n\n", "RESOURCES:\n==> v1/ConfigMap\nNAME\nc\n\n==> v1/Service\nNAME\ns\n\n"},
		"a plain name":   {"r1-config", "r1-config"},
		"canceled read":  {"E1205 05:31:02.123456   4242 request.go:1198] \"Unexpected error when reading response body\" err=\"context canceled\"\nError: x\n", "Error: x\n"},
		"canceled watch": {"I1205 05:31:02.123456   4242 reflector.go:664] \"Warning: watch ended with error\" err=\"an error on the server (\\\"unable to decode an event from the watch stream: context canceled\\\") has prevented the request from succeeding\"\n", ""},
		"other klog":     {"W1205 05:31:02.123456   4242 reflector.go:664] \"x\"\n", "W<klog> reflector.go:664] \"x\"\n"},
		"live objects":   {`{"resourceVersion":"30481","podIP":"10.244.0.32","name":"kube-api-access-6j5sd"}`, `{"resourceVersion":"<version>","podIP":"<ip>","name":"kube-api-access-<random>"}`},
	}
	for name, tc := range tests {
		if got := maskVolatile(tc.in); got != tc.want {
			t.Errorf("%s: maskVolatile(%q) = %q, want %q", name, tc.in, got, tc.want)
		}
	}
}

func TestTextDiffListsOnlyTheLinesThatDiffer(t *testing.T) {
	got := textDiff("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n", 10)
	if want := "  + B\n  - b\n  + e\n"; got != want {
		t.Errorf("textDiff = %q, want %q", got, want)
	}
	if got := textDiff(strings.Repeat("x\n", 5), strings.Repeat("y\n", 5), 2); !strings.HasSuffix(got, "... 8 more lines differ\n") {
		t.Errorf("textDiff past its limit = %q", got)
	}
}

// The signature leaves the step's number out, so that dropping a step
// before the difference keeps it.
func TestSequenceSignatureIgnoresStepNumbers(t *testing.T) {
	step := StepResult{Args: []string{"upgrade", "r1", "./chart"}, Helm: Outcome{Exit: 1, Stderr: "Error: x\n"}, Ours: Outcome{Stderr: ""}}
	a := SequenceResult{Steps: []StepResult{{}, step}, Step: 1, Aspects: step.differs()}
	b := SequenceResult{Steps: []StepResult{step}, Step: 0, Aspects: step.differs()}
	if a.Signature() != b.Signature() || a.Signature() == "" {
		t.Errorf("signatures %q and %q", a.Signature(), b.Signature())
	}
	if (SequenceResult{Step: -1}).Differs() {
		t.Error("a result without a differing step differs")
	}
}

func TestDropManagedFields(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"json": {`{"metadata":{"labels":{"a":"b"},"managedFields":[{"apiVersion":"v1","fieldsV1":{"f:data":{".":{},"f:x":{}}},"manager":"helm","operation":"Update"}],"name":"c"}}`,
			`{"metadata":{"labels":{"a":"b"},"name":"c"}}`},
		"yaml": {"    labels:\n      a: b\n    managedFields:\n    - apiVersion: v1\n      fieldsV1:\n        f:data:\n          f:x: {}\n      manager: helm\n      operation: Apply\n    name: c\n",
			"    labels:\n      a: b\n    name: c\n"},
		"none": {`{"name":"c"}`, `{"name":"c"}`},
	}
	for name, tc := range tests {
		if got := dropManagedFields(tc.in); got != tc.want {
			t.Errorf("%s: dropManagedFields = %q, want %q", name, got, tc.want)
		}
	}
}

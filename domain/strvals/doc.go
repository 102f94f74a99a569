// Package strvals parses the value strings given to --set, --set-string,
// --set-file, --set-json and --set-literal, with the semantics of Helm 3.22.
//
// A line such as
//
//	name=value,outer.inner=1,list[0].x=true,tags={a,b}
//
// merges into a values map as
//
//	name: value
//	outer:
//	  inner: 1
//	list:
//	- x: true
//	tags: [a, b]
//
// Helm's quirks are kept on purpose, because charts and scripts depend on
// them: "a={}" yields [""], "a[0].b=" at the very end of input leaves a
// empty, a negative index or one above MaxIndex is rejected, and error texts
// are Helm's word for word.
//
// The package does no I/O: --set-file reads through an injected FileReader.
package strvals

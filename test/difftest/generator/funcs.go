package generator

// fn is one function of the table Helm registers for templates (sprig's and Helm's own), with the
// kinds of its arguments. Random and clock functions are absent on purpose: randAlpha, randAlphaNum,
// randAscii, randNumeric, randBytes, randInt, shuffle, uuidv4, genCA, genPrivateKey, genSelfSignedCert,
// genSignedCert, derivePassword, bcrypt, htpasswd, encryptAES/decryptAES, now, ago and the
// date functions called without a fixed time; getHostByName (DNS); env and expandenv (environment).
type fn struct {
	name string
	args []kind
}

var funcs = []fn{
	// strings
	{"upper", []kind{kStr}}, {"lower", []kind{kStr}}, {"title", []kind{kStr}}, {"untitle", []kind{kStr}},
	{"trim", []kind{kStr}}, {"trimAll", []kind{kStr, kStr}}, {"trimPrefix", []kind{kStr, kStr}},
	{"trimSuffix", []kind{kStr, kStr}}, {"repeat", []kind{kInt, kStr}}, {"substr", []kind{kInt, kInt, kStr}},
	{"nospace", []kind{kStr}}, {"trunc", []kind{kInt, kStr}}, {"abbrev", []kind{kInt, kStr}},
	{"abbrevboth", []kind{kInt, kInt, kStr}}, {"initials", []kind{kStr}}, {"wrap", []kind{kInt, kStr}},
	{"wrapWith", []kind{kInt, kStr, kStr}}, {"contains", []kind{kStr, kStr}}, {"hasPrefix", []kind{kStr, kStr}},
	{"hasSuffix", []kind{kStr, kStr}}, {"quote", []kind{kAny}}, {"squote", []kind{kAny}}, {"cat", []kind{kAny, kAny}},
	{"indent", []kind{kInt, kStr}}, {"nindent", []kind{kInt, kStr}}, {"replace", []kind{kStr, kStr, kStr}},
	{"plural", []kind{kStr, kStr, kInt}}, {"snakecase", []kind{kStr}}, {"camelcase", []kind{kStr}},
	{"kebabcase", []kind{kStr}}, {"swapcase", []kind{kStr}}, {"toString", []kind{kAny}}, {"toStrings", []kind{kList}},
	{"printf", []kind{kFmt, kAny}}, {"print", []kind{kAny, kAny}}, {"println", []kind{kAny}},
	{"regexMatch", []kind{kRegex, kStr}}, {"regexFind", []kind{kRegex, kStr}}, {"regexFindAll", []kind{kRegex, kStr, kInt}},
	{"regexReplaceAll", []kind{kRegex, kStr, kStr}}, {"regexReplaceAllLiteral", []kind{kRegex, kStr, kStr}},
	{"regexSplit", []kind{kRegex, kStr, kInt}}, {"regexQuoteMeta", []kind{kStr}}, {"mustRegexMatch", []kind{kRegex, kStr}},
	{"split", []kind{kStr, kStr}}, {"splitList", []kind{kStr, kStr}}, {"splitn", []kind{kStr, kInt, kStr}},
	{"join", []kind{kStr, kList}}, {"sortAlpha", []kind{kList}}, {"b64enc", []kind{kStr}}, {"b64dec", []kind{kStr}},
	{"b32enc", []kind{kStr}}, {"b32dec", []kind{kStr}}, {"sha1sum", []kind{kStr}}, {"sha256sum", []kind{kStr}},
	{"sha512sum", []kind{kStr}}, {"adler32sum", []kind{kStr}}, {"html", []kind{kStr}}, {"js", []kind{kStr}},
	{"urlquery", []kind{kStr}}, {"base", []kind{kStr}}, {"dir", []kind{kStr}}, {"ext", []kind{kStr}},
	{"clean", []kind{kStr}}, {"isAbs", []kind{kStr}}, {"urlParse", []kind{kStr}},
	// numbers
	{"atoi", []kind{kStr}}, {"int", []kind{kAny}}, {"int64", []kind{kAny}}, {"float64", []kind{kAny}},
	{"toDecimal", []kind{kStr}}, {"add", []kind{kInt, kInt}}, {"add1", []kind{kInt}}, {"sub", []kind{kInt, kInt}},
	{"div", []kind{kInt, kInt}}, {"mod", []kind{kInt, kInt}}, {"mul", []kind{kInt, kInt}}, {"max", []kind{kInt, kInt}},
	{"min", []kind{kInt, kInt}}, {"floor", []kind{kInt}}, {"ceil", []kind{kInt}}, {"round", []kind{kInt, kInt}},
	{"addf", []kind{kInt, kInt}}, {"subf", []kind{kInt, kInt}}, {"mulf", []kind{kInt, kInt}}, {"divf", []kind{kInt, kInt}},
	{"maxf", []kind{kInt, kInt}}, {"minf", []kind{kInt, kInt}}, {"until", []kind{kInt}}, {"untilStep", []kind{kInt, kInt, kInt}},
	{"seq", []kind{kInt}},
	// logic and types
	{"default", []kind{kAny, kAny}}, {"empty", []kind{kAny}}, {"coalesce", []kind{kAny, kAny}}, {"ternary", []kind{kAny, kAny, kAny}},
	{"typeOf", []kind{kAny}}, {"kindOf", []kind{kAny}}, {"kindIs", []kind{kStr, kAny}}, {"typeIs", []kind{kStr, kAny}},
	{"deepEqual", []kind{kAny, kAny}}, {"eq", []kind{kAny, kAny}}, {"ne", []kind{kAny, kAny}}, {"lt", []kind{kInt, kInt}},
	{"le", []kind{kInt, kInt}}, {"gt", []kind{kInt, kInt}}, {"ge", []kind{kInt, kInt}}, {"not", []kind{kAny}},
	{"and", []kind{kAny, kAny}}, {"or", []kind{kAny, kAny}}, {"len", []kind{kAny}}, {"index", []kind{kAny, kAny}},
	{"all", []kind{kAny, kAny}}, {"any", []kind{kAny, kAny}}, {"fromYamlArray", []kind{kStr}}, {"fromJsonArray", []kind{kStr}},
	// lists
	{"list", []kind{kAny, kAny}}, {"first", []kind{kList}}, {"rest", []kind{kList}}, {"last", []kind{kList}},
	{"initial", []kind{kList}}, {"append", []kind{kList, kAny}}, {"prepend", []kind{kList, kAny}},
	{"concat", []kind{kList, kList}}, {"reverse", []kind{kList}}, {"uniq", []kind{kList}}, {"without", []kind{kList, kAny}},
	{"has", []kind{kAny, kList}}, {"compact", []kind{kList}}, {"slice", []kind{kList, kInt}}, {"chunk", []kind{kInt, kList}},
	{"mustFirst", []kind{kList}}, {"mustLast", []kind{kList}}, {"mustAppend", []kind{kList, kAny}}, {"mustUniq", []kind{kList}},
	// dicts
	{"dict", []kind{kStr, kAny}}, {"get", []kind{kMap, kStr}}, {"hasKey", []kind{kMap, kStr}}, {"pluck", []kind{kStr, kMap}},
	{"pick", []kind{kMap, kStr}}, {"omit", []kind{kMap, kStr}}, {"merge", []kind{kMap, kMap}}, {"mergeOverwrite", []kind{kMap, kMap}},
	{"deepCopy", []kind{kAny}}, {"mustDeepCopy", []kind{kAny}}, {"dig", []kind{kStr, kStr, kAny, kMap}},
	{"unset", []kind{kMap, kStr}}, {"set", []kind{kMap, kStr, kAny}},
	// serialisation (Helm's own)
	{"toYaml", []kind{kAny}}, {"fromYaml", []kind{kStr}}, {"toJson", []kind{kAny}}, {"fromJson", []kind{kStr}},
	{"toPrettyJson", []kind{kAny}}, {"toRawJson", []kind{kAny}}, {"mustToPrettyJson", []kind{kAny}}, {"mustToRawJson", []kind{kAny}},
	{"toToml", []kind{kAny}}, {"fromToml", []kind{kStr}}, {"mustFromJson", []kind{kStr}},
	// semver, dates with fixed times
	{"semver", []kind{kSemver}}, {"semverCompare", []kind{kSemver, kSemver}},
	{"date", []kind{kFmt, kDate}}, {"dateInZone", []kind{kFmt, kDate, kStr}}, {"htmlDate", []kind{kDate}},
	{"toDate", []kind{kFmt, kStr}}, {"unixEpoch", []kind{kDate}}, {"dateModify", []kind{kStr, kDate}},
	// Helm's own
	{"required", []kind{kStr, kAny}}, {"tpl", []kind{kStr, kAny}}, {"include", []kind{kStr, kAny}},
	{"lookup", []kind{kStr, kStr, kStr, kStr}},
}

// helm4Funcs exist only in Helm 4's table; drawn in that dialect only.
var helm4Funcs = []fn{
	{"mustToYaml", []kind{kAny}}, {"mustToJson", []kind{kAny}}, {"mustToToml", []kind{kAny}},
	{"mustFromYaml", []kind{kStr}}, {"mustFromYamlArray", []kind{kStr}}, {"mustFromJsonArray", []kind{kStr}},
}

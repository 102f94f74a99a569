package action

// wordedError is err in the words one of Helm's use cases has for it.
type wordedError struct {
	words string
	err   error
}

func (e *wordedError) Error() string { return e.words }

func (e *wordedError) Unwrap() error { return e.err }

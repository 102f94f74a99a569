package strvals

const (
	// MaxIndex is the largest list index accepted in a key such as a[3].
	// Helm caps it so a single flag cannot allocate an arbitrarily large list.
	MaxIndex = 65536

	// MaxNestedNameLevel is how many dotted segments a key may nest.
	MaxNestedNameLevel = 30
)

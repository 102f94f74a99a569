package engine

// Unmetered is e rendering without its budget: BenchmarkBudget measures what
// the budget costs against it.
func Unmetered(e Engine) Engine {
	e.unmetered = true
	return e
}

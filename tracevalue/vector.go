package tracevalue

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
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
	for i := 0; i+ngram <= len(norm); i++ {
		h.Reset()
		h.Write([]byte(string(norm[i : i+ngram])))
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

// cosine of two quantised vectors (0 when either is zero).
func cosine(a, b *Vector) float64 {
	var dot, na, nb int64
	for i := range a {
		x, y := int64(a[i]), int64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return float64(dot) / math.Sqrt(float64(na)*float64(nb))
}

// Cache is the vectors of a skill's previous executions, at most
// CacheSize, oldest out first (the seed's VectorCache, brute force).
type Cache struct {
	vecs []Vector
	next int // where the next vector goes once full
	max  int
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
func (c *Cache) Len() int { return len(c.vecs) }

// Add adds v, dropping the oldest when full.
func (c *Cache) Add(v Vector) {
	if len(c.vecs) < c.max {
		c.vecs = append(c.vecs, v)
		return
	}
	c.vecs[c.next] = v
	c.next = (c.next + 1) % c.max
}

// MaxCosine is the largest cosine similarity between v and the vectors
// held (0 when empty).
func (c *Cache) MaxCosine(v Vector) float64 {
	best := 0.0
	for i := range c.vecs {
		if s := cosine(&v, &c.vecs[i]); s > best {
			best = s
		}
	}
	return best
}

// Clone returns an independent copy.
func (c *Cache) Clone() *Cache {
	return &Cache{vecs: append([]Vector(nil), c.vecs...), next: c.next, max: c.max}
}

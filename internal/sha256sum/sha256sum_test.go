package sha256sum_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"go/parser"
	"go/token"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/sepad/sepad/internal/sha256sum"
)

// Compile-time check that *Digest is an io.Writer although the package does
// not import io.
var _ io.Writer = (*sha256sum.Digest)(nil)

func hexOf(sum []byte) string { return string(sha256sum.AppendHex(nil, sum)) }

func TestKnownVectors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", []byte("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"448-bit", []byte("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
			"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
		{"896-bit", []byte("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
			"cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
		{"million-a", bytes.Repeat([]byte("a"), 1_000_000),
			"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum := sha256sum.Sum256(tt.in)
			if got := hexOf(sum[:]); got != tt.want {
				t.Errorf("Sum256 = %s, want %s", got, tt.want)
			}
			// Streaming, one byte at a time for short inputs, 1000-byte
			// chunks for the long one.
			chunk := 1
			if len(tt.in) > 1000 {
				chunk = 1000
			}
			d := sha256sum.New()
			for p := tt.in; len(p) > 0; {
				n := min(chunk, len(p))
				if w, err := d.Write(p[:n]); w != n || err != nil {
					t.Fatalf("Write = %d, %v; want %d, nil", w, err, n)
				}
				p = p[n:]
			}
			if got := hexOf(d.Sum(nil)); got != tt.want {
				t.Errorf("streaming Sum = %s, want %s", got, tt.want)
			}
		})
	}
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestDifferentialEveryLength(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 300; n++ {
		data := randBytes(r, n)
		if got, want := sha256sum.Sum256(data), sha256.Sum256(data); got != want {
			t.Fatalf("len %d: Sum256 = %x, want %x", n, got, want)
		}
		d := sha256sum.New()
		d.Write(data)
		if got, want := d.Sum(nil), sha256.Sum256(data); !bytes.Equal(got, want[:]) {
			t.Fatalf("len %d: Digest.Sum = %x, want %x", n, got, want)
		}
	}
}

func TestDifferentialRandomLengths(t *testing.T) {
	seed := uint64(os.Getpid())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	iters := 20
	if testing.Short() {
		iters = 4
	}
	for i := 0; i < iters; i++ {
		n := r.IntN(1<<20 + 1)
		data := randBytes(r, n)
		if got, want := sha256sum.Sum256(data), sha256.Sum256(data); got != want {
			t.Fatalf("len %d: Sum256 = %x, want %x", n, got, want)
		}
	}
}

func TestStreamingRandomSplits(t *testing.T) {
	seed := uint64(os.Getpid()) + 1
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 9))
	for i := 0; i < 200; i++ {
		n := r.IntN(5000)
		if i%20 == 0 {
			n = r.IntN(1 << 20)
		}
		data := randBytes(r, n)
		want := sha256.Sum256(data)
		d := sha256sum.New()
		for p := data; len(p) > 0; {
			// Mix tiny, block-sized and large writes.
			var k int
			switch r.IntN(3) {
			case 0:
				k = r.IntN(8)
			case 1:
				k = r.IntN(130)
			default:
				k = r.IntN(len(p) + 1)
			}
			k = min(k, len(p))
			if w, err := d.Write(p[:k]); w != k || err != nil {
				t.Fatalf("Write = %d, %v; want %d, nil", w, err, k)
			}
			p = p[k:]
		}
		if got := d.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Fatalf("len %d: streaming Sum = %x, want %x", n, got, want)
		}
	}
}

func TestSumDoesNotChangeState(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, split := range []int{0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000} {
		data := randBytes(r, split+777)
		d := sha256sum.New()
		d.Write(data[:split])
		mid := d.Sum(nil)
		if want := sha256.Sum256(data[:split]); !bytes.Equal(mid, want[:]) {
			t.Fatalf("split %d: intermediate Sum = %x, want %x", split, mid, want)
		}
		if again := d.Sum(nil); !bytes.Equal(again, mid) {
			t.Fatalf("split %d: second Sum = %x, want %x", split, again, mid)
		}
		d.Write(data[split:])
		want := sha256sum.Sum256(data)
		if got := d.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Fatalf("split %d: final Sum = %x, want %x", split, got, want)
		}
	}
}

func TestSumAppends(t *testing.T) {
	prefix := []byte("prefix:")
	d := sha256sum.New()
	d.Write([]byte("abc"))
	got := d.Sum(append([]byte(nil), prefix...))
	want := sha256.Sum256([]byte("abc"))
	if !bytes.Equal(got, append(prefix, want[:]...)) {
		t.Fatalf("Sum(prefix) = %x, want prefix followed by %x", got, want)
	}
}

func TestAppendHex(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 64; n++ {
		b := randBytes(r, n)
		if got, want := string(sha256sum.AppendHex(nil, b)), hex.EncodeToString(b); got != want {
			t.Fatalf("AppendHex(%x) = %q, want %q", b, got, want)
		}
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	if got, want := string(sha256sum.AppendHex(nil, all)), hex.EncodeToString(all); got != want {
		t.Fatalf("AppendHex(0..255) = %q, want %q", got, want)
	}
	if got := string(sha256sum.AppendHex([]byte("x="), []byte{0xAB, 0x0F})); got != "x=ab0f" {
		t.Fatalf("AppendHex with prefix = %q, want %q", got, "x=ab0f")
	}
}

func TestSum256DoesNotAllocate(t *testing.T) {
	data := make([]byte, 1000)
	if n := testing.AllocsPerRun(10, func() { sha256sum.Sum256(data) }); n != 0 {
		t.Errorf("Sum256 allocs = %v, want 0", n)
	}
}

// TestImportsOnlyMathBits keeps the package's import closure tiny: the whole
// point of the package is to avoid crypto/sha256's init-heavy dependencies.
func TestImportsOnlyMathBits(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]bool{}
	parsed := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		parsed++
		for _, imp := range af.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			imports[p] = true
		}
	}
	if parsed == 0 {
		t.Fatal("no non-test .go files found")
	}
	var got []string
	for p := range imports {
		got = append(got, p)
	}
	sort.Strings(got)
	if len(got) != 1 || got[0] != "math/bits" {
		t.Fatalf("non-test imports = %q, want exactly [\"math/bits\"]", got)
	}
}

// TestDepsClosure checks the full transitive closure with go list, which
// would also catch a build-tagged file the parser test could miss.
func TestDepsClosure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not in PATH")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const self = "github.com/sepad/sepad/internal/sha256sum"
	deps := strings.Fields(string(out))
	sawSelf := false
	for _, d := range deps {
		switch {
		case d == self:
			sawSelf = true
		case d == "unsafe", d == "math/bits", strings.HasPrefix(d, "internal/"):
		default:
			t.Errorf("unexpected dependency %q in %q", d, deps)
		}
	}
	if !sawSelf {
		t.Errorf("go list -deps output %q does not include %s", deps, self)
	}
}

func FuzzSum256(f *testing.F) {
	f.Add([]byte(""), uint(0))
	f.Add([]byte("abc"), uint(1))
	f.Fuzz(func(t *testing.T, data []byte, split uint) {
		want := sha256.Sum256(data)
		if got := sha256sum.Sum256(data); got != want {
			t.Fatalf("Sum256(%x) = %x, want %x", data, got, want)
		}
		k := int(split % uint(len(data)+1))
		d := sha256sum.New()
		d.Write(data[:k])
		if mid, w := d.Sum(nil), sha256.Sum256(data[:k]); !bytes.Equal(mid, w[:]) {
			t.Fatalf("prefix %d: Sum = %x, want %x", k, mid, w)
		}
		d.Write(data[k:])
		if got := d.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Fatalf("split %d: Sum = %x, want %x", k, got, want)
		}
		if got, w := string(sha256sum.AppendHex(nil, want[:])), hex.EncodeToString(want[:]); got != w {
			t.Fatalf("AppendHex = %q, want %q", got, w)
		}
	})
}

var sink [32]byte

func BenchmarkSum256(b *testing.B) {
	sizes := []struct {
		name string
		n    int
	}{{"2KiB", 2 << 10}, {"64KiB", 64 << 10}, {"5MiB", 5 << 20}}
	for _, s := range sizes {
		data := make([]byte, s.n)
		for i := range data {
			data[i] = byte(i * 7)
		}
		b.Run(s.name+"/sha256sum", func(b *testing.B) {
			b.SetBytes(int64(s.n))
			for b.Loop() {
				sink = sha256sum.Sum256(data)
			}
		})
		b.Run(s.name+"/crypto", func(b *testing.B) {
			b.SetBytes(int64(s.n))
			for b.Loop() {
				sink = sha256.Sum256(data)
			}
		})
	}
}

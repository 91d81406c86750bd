// Package sha256sum is a small SHA-256 (FIPS 180-4) implementation whose only
// import is math/bits.
//
// It exists so that the `sepad hook` command, which starts on every Claude Code
// tool call, can hash data without importing crypto/sha256: that package pulls
// crypto/internal/fips140 and strings into the import closure, and Go's
// package initialisation order then runs dozens of unrelated init functions
// before the hook does any work.
package sha256sum

// Size is the length in bytes of a SHA-256 digest.
const Size = 32

// BlockSize is the SHA-256 block length in bytes; Write hashes full blocks
// straight from the caller's slice and buffers only the remainder.
const BlockSize = 64

// The eight initial hash values H(0) of FIPS 180-4 section 5.3.3.
const (
	init0 = 0x6a09e667
	init1 = 0xbb67ae85
	init2 = 0x3c6ef372
	init3 = 0xa54ff53a
	init4 = 0x510e527f
	init5 = 0x9b05688c
	init6 = 0x1f83d9ab
	init7 = 0x5be0cd19
)

// The 64 round constants K of FIPS 180-4 section 4.2.2.
var _K = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

// Digest is a streaming SHA-256 state, for hashing input that arrives in
// pieces (e.g. copied from a reader). The zero value is not ready; use New.
type Digest struct {
	h   [8]uint32
	buf [BlockSize]byte
	nx  int    // bytes pending in buf
	len uint64 // total bytes written
}

// New returns a Digest ready to hash a fresh message.
func New() *Digest {
	d := new(Digest)
	d.reset()
	return d
}

func (d *Digest) reset() {
	d.h = [8]uint32{init0, init1, init2, init3, init4, init5, init6, init7}
	d.nx = 0
	d.len = 0
}

// Write adds p to the running hash. It never fails; it returns an error only
// so that *Digest satisfies io.Writer without this package importing io.
func (d *Digest) Write(p []byte) (int, error) {
	n := len(p)
	d.len += uint64(n)
	if d.nx > 0 {
		c := copy(d.buf[d.nx:], p)
		d.nx += c
		p = p[c:]
		if d.nx < BlockSize {
			return n, nil
		}
		block(&d.h, d.buf[:])
		d.nx = 0
	}
	if full := len(p) &^ (BlockSize - 1); full > 0 {
		block(&d.h, p[:full]) // hash whole blocks in place, no copy
		p = p[full:]
	}
	d.nx = copy(d.buf[:], p)
	return n, nil
}

// Sum appends the 32-byte digest of everything written so far to b and
// returns the result. It works on a copy, so the caller may keep writing.
func (d *Digest) Sum(b []byte) []byte {
	c := *d
	sum := c.finish()
	return append(b, sum[:]...)
}

// finish applies the FIPS 180-4 padding (0x80, zeros, 64-bit big-endian bit
// length) and returns the final digest. It consumes d.
func (d *Digest) finish() [Size]byte {
	bitLen := d.len << 3
	var pad [BlockSize + 8]byte
	pad[0] = 0x80
	// Pad so that the total length is congruent to 56 mod 64.
	var n int
	if d.len%64 < 56 {
		n = 56 - int(d.len%64)
	} else {
		n = 64 + 56 - int(d.len%64)
	}
	putUint64(pad[n:], bitLen)
	d.Write(pad[:n+8])

	var out [Size]byte
	for i, v := range d.h {
		putUint32(out[i*4:], v)
	}
	return out
}

// Sum256 returns the SHA-256 digest of data in one call, without allocating.
func Sum256(data []byte) [Size]byte {
	var d Digest
	d.reset()
	d.Write(data)
	return d.finish()
}

// AppendHex appends the lowercase hexadecimal form of sum to dst, matching
// encoding/hex.EncodeToString without importing encoding/hex.
func AppendHex(dst []byte, sum []byte) []byte {
	const digits = "0123456789abcdef"
	for _, c := range sum {
		dst = append(dst, digits[c>>4], digits[c&0x0f])
	}
	return dst
}

func putUint32(b []byte, v uint32) {
	_ = b[3]
	b[0] = byte(v >> 24)
	b[1] = byte(v >> 16)
	b[2] = byte(v >> 8)
	b[3] = byte(v)
}

func putUint64(b []byte, v uint64) {
	_ = b[7]
	b[0] = byte(v >> 56)
	b[1] = byte(v >> 48)
	b[2] = byte(v >> 40)
	b[3] = byte(v >> 32)
	b[4] = byte(v >> 24)
	b[5] = byte(v >> 16)
	b[6] = byte(v >> 8)
	b[7] = byte(v)
}

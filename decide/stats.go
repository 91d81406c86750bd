package decide

import "math"

// Distribution helpers for the decision methods. They are exact to about
// 1e-12 in the ranges the methods use (|z| < 38, df ≥ 1): the sequential
// boundaries reach z ≈ 7 at the first look, where approximations such as
// Wallace's t→z normalisation are off by enough to matter.

// normCDF is Φ(z).
func normCDF(z float64) float64 {
	if math.IsNaN(z) {
		return 0.5
	}
	return 0.5 * math.Erfc(-z/math.Sqrt2)
}

// normSF is the upper tail 1-Φ(z), accurate far into the tail.
func normSF(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// normQuantile is Φ⁻¹(p): Acklam's rational approximation refined by one
// Halley step on Erfc, for p in (0,1).
func normQuantile(p float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	}
	a := [6]float64{-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00}
	b := [5]float64{-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01}
	c := [6]float64{-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00}
	d := [4]float64{7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00}
	const lo = 0.02425
	var x float64
	switch {
	case p < lo:
		q := math.Sqrt(-2 * math.Log(p))
		x = (((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	case p <= 1-lo:
		q := p - 0.5
		r := q * q
		x = (((((a[0]*r+a[1])*r+a[2])*r+a[3])*r+a[4])*r + a[5]) * q / (((((b[0]*r+b[1])*r+b[2])*r+b[3])*r+b[4])*r + 1)
	default:
		q := math.Sqrt(-2 * math.Log(1-p))
		x = -(((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	}
	// Halley refinement; in the lower half the error is computed on Φ,
	// in the upper half on the upper tail, so both tails stay accurate.
	var e float64
	if x < 0 {
		e = normCDF(x) - p
	} else {
		e = -(normSF(x) - (1 - p))
	}
	u := e * math.Sqrt(2*math.Pi) * math.Exp(x*x/2)
	return x - u/(1+x*u/2)
}

// normSFInv is the z whose upper tail is p, accurate for tiny p (where
// 1-p would round to 1).
func normSFInv(p float64) float64 {
	if p >= 0.5 {
		return -normQuantile(p)
	}
	x := -normQuantile(p) // a first guess, good to ~1e-9 relative
	for i := 0; i < 3; i++ {
		// Newton on log tail: f(x) = log S(x) - log p.
		s := normSF(x)
		if s <= 0 {
			break
		}
		dens := math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
		x += (math.Log(s) - math.Log(p)) * s / dens
	}
	return x
}

// tSF is the upper tail of Student's t with df degrees of freedom.
func tSF(t, df float64) float64 {
	if math.IsNaN(t) || df <= 0 {
		return math.NaN()
	}
	if math.IsInf(df, 1) {
		return normSF(t)
	}
	x := df / (df + t*t)
	tail := 0.5 * regIncBeta(df/2, 0.5, x)
	if t < 0 {
		return 1 - tail
	}
	return tail
}

// tToZ maps a t statistic to the standard normal value with the same tail
// probability, so that boundaries computed for normal statistics apply to
// t statistics with estimated variances.
func tToZ(t, df float64) float64 {
	if math.IsNaN(t) {
		return 0
	}
	if math.IsInf(t, 0) || df <= 0 || math.IsInf(df, 1) {
		return t
	}
	if t < 0 {
		return -tToZ(-t, df)
	}
	p := tSF(t, df)
	if p <= 0 {
		return 38 // beyond float64's normal tail
	}
	return normSFInv(p)
}

// zToT inverts tToZ: the t statistic with df degrees of freedom whose
// tail probability is that of z (Newton's method on the log tail, from a
// Cornish–Fisher start).
func zToT(z, df float64) float64 {
	if math.IsNaN(z) || math.IsInf(z, 0) || df <= 0 || math.IsInf(df, 1) {
		return z
	}
	if z < 0 {
		return -zToT(-z, df)
	}
	target := math.Log(normSF(z))
	t := z + (z*z*z+z)/(4*df)
	lg1, _ := math.Lgamma((df + 1) / 2)
	lg2, _ := math.Lgamma(df / 2)
	logC := lg1 - lg2 - 0.5*math.Log(df*math.Pi)
	for i := 0; i < 50; i++ {
		sf := tSF(t, df)
		if sf <= 0 {
			t /= 2
			continue
		}
		pdf := math.Exp(logC - (df+1)/2*math.Log1p(t*t/df))
		step := (math.Log(sf) - target) * sf / pdf
		t += step
		if t < z {
			t = z // the t tail is heavier: never below z
		}
		if math.Abs(step) < 1e-10*math.Max(1, t) {
			break
		}
	}
	return t
}

// regIncBeta is the regularised incomplete beta function I_x(a, b)
// (continued fraction, modified Lentz).
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	// step is one modified-Lentz update with coefficient aa; it returns
	// the factor h is multiplied by.
	step := func(aa float64) float64 {
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		return d * c
	}
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		m2 := 2 * fm
		h *= step(fm * (b - fm) * x / ((qam + m2) * (a + m2)))
		del := step(-(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2)))
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// MeanSD returns the mean and the sample standard deviation (n-1).
func MeanSD(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	if len(xs) < 2 {
		return m, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(xs)-1))
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }
func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

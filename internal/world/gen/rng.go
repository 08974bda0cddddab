package gen

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// rng is a PCG generator with the few draws the generator needs. The
// rand.Rand shares the PCG state, for the ziggurat draws.
type rng struct {
	src rand.PCG
	r   *rand.Rand
}

// Stream numbers keep the independent random sequences apart. Values
// added later (likes, spaces, extended bios) draw from streams of their
// own, so every value of the earlier streams stays as it was.
const (
	streamUsers uint64 = iota + 1
	streamFollows
	streamLists
	streamCommunities
	streamPosts
	streamVocab
	streamFinal
	streamLikes
	streamSpaces
	streamBios
)

func newRNG(seed int64, stream, idx uint64) *rng {
	g := &rng{}
	g.r = rand.New(&g.src)
	g.reseed(seed, stream, idx)
	return g
}

// reseed restarts the generator on the sequence named by (seed, stream, idx).
func (g *rng) reseed(seed int64, stream, idx uint64) {
	a := splitmix(uint64(seed) ^ splitmix(stream))
	b := splitmix(a ^ splitmix(idx+stream<<40))
	g.src.Seed(a, b)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func (g *rng) u64() uint64 { return g.src.Uint64() }

// intn returns a number in [0, n); n <= 0 gives 0.
func (g *rng) intn(n int) int {
	if n <= 0 {
		return 0
	}
	hi, _ := bits.Mul64(g.src.Uint64(), uint64(n))
	return int(hi)
}

// int63n is intn for int64 ranges.
func (g *rng) int63n(n int64) int64 {
	if n <= 0 {
		return 0
	}
	hi, _ := bits.Mul64(g.src.Uint64(), uint64(n))
	return int64(hi)
}

// between returns a number in [lo, hi].
func (g *rng) between(lo, hi int) int { return lo + g.intn(hi-lo+1) }

// float returns a number in [0, 1).
func (g *rng) float() float64 { return float64(g.src.Uint64()>>11) / (1 << 53) }

// chance is true with probability p.
func (g *rng) chance(p float64) bool { return g.float() < p }

// pareto returns a Pareto(alpha) draw, at least 1.
func (g *rng) pareto(alpha float64) float64 { return math.Exp(math.Log(1-g.float()) * (-1 / alpha)) }

// quantiles tabulates a distribution by 1024 quantiles of its inverse CDF,
// for draws in O(1) without floating point.
type quantiles [1024]int32

func newQuantiles(inv func(p float64) float64) *quantiles {
	var q quantiles
	for i := range q {
		q[i] = int32(inv((float64(i) + 0.5) / 1024))
	}
	return &q
}

func (q *quantiles) draw(g *rng) int { return int(q[g.intn(len(q))]) }

// logNormal returns exp(N(mu, sigma)).
func (g *rng) logNormal(mu, sigma float64) float64 {
	return math.Exp(mu + float64(sigma*g.r.NormFloat64()))
}

// exp returns an exponential draw with mean 1.
func (g *rng) exp() float64 { return g.r.ExpFloat64() }

// pick returns a random element of s.
func pick[T any](g *rng, s []T) T { return s[g.intn(len(s))] }

// alias samples indices in proportion to fixed weights in O(1) (Vose).
type alias struct {
	prob  []uint32
	alias []int32
}

func newAlias(w []float64) alias {
	n := len(w)
	a := alias{prob: make([]uint32, n), alias: make([]int32, n)}
	if n == 0 {
		return a
	}
	var sum float64
	for _, x := range w {
		sum += x
	}
	scaled := make([]float64, n)
	small := make([]int32, 0, n)
	large := make([]int32, 0, n)
	for i, x := range w {
		scaled[i] = float64(x*float64(n)) / sum
		a.alias[i] = int32(i)
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		a.prob[s] = toProb(scaled[s])
		a.alias[s] = l
		scaled[l] = (scaled[l] + scaled[s]) - 1
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range large {
		a.prob[i] = math.MaxUint32
	}
	for _, i := range small {
		a.prob[i] = math.MaxUint32
	}
	return a
}

func toProb(p float64) uint32 {
	if p >= 1 {
		return math.MaxUint32
	}
	return uint32(p * (1 << 32))
}

// pick draws an index; the table must not be empty.
func (a *alias) pick(g *rng) int { return a.pickBits(g.u64()) }

// pickBits draws an index from the low 54 bits of a random x, leaving its
// top 10 bits to the caller: 22 bits choose the slot (tables are far
// smaller than 2^22), 32 bits toss the coin.
func (a *alias) pickBits(x uint64) int {
	i := int((x & (1<<22 - 1)) * uint64(len(a.prob)) >> 22)
	if uint32(x>>22) < a.prob[i] {
		return i
	}
	return int(a.alias[i])
}

// zipfPick samples ranks with Zipf weights in two tiers, the head (the
// real words) and the tail, so that most draws touch only a small table
// that stays in cache.
type zipfPick struct {
	headShare uint64 // P(head) in 1/1024
	split     int    // first tail rank
	head      alias
	tail      alias
}

func newZipfPick(n, head int, s, q float64) zipfPick {
	w := zipfWeights(n, s, q)
	head = min(head, n)
	var hs, all float64
	for i, x := range w {
		all += x
		if i < head {
			hs += x
		}
	}
	z := zipfPick{headShare: uint64(float64(hs / all * 1024)), split: head, head: newAlias(w[:head]), tail: newAlias(w[head:])}
	if head == n {
		z.headShare = 1024
	}
	return z
}

func (z *zipfPick) pick(g *rng) int {
	x := g.u64()
	if x>>54 < z.headShare {
		return z.head.pickBits(x)
	}
	return z.split + z.tail.pickBits(x)
}

// zipfWeights returns Zipf–Mandelbrot weights 1/(rank+q)^s for n ranks.
func zipfWeights(n int, s, q float64) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = math.Pow(float64(i)+q, -s)
	}
	return w
}

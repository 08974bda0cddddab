package fault

import (
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// Outcome is what one request gets: an injected status (0: none, 429 or
// 500) and a delay before the answer.
type Outcome struct {
	Status int
	Delay  time.Duration
}

// Dice decide the outcome of each request of each key. Without a seed
// every request is an independent draw. With one, a key's requests are
// counted from its first request under that plan on this process (a
// change of plan counts from 0 again): request i falls at position
// perm(i mod 1000) of the permutation of 0..999 that the seed and block
// i/1000 give, and positions below the 429 share are 429, the next ones
// 500. So every block of 1,000 consecutive requests holds exactly the
// plan's shares, in an order that looks random and is the same on every
// run. Delays draw from a second permutation of their own. Safe for
// concurrent use.
type Dice struct {
	mu   sync.Mutex
	keys map[int64]*keyDice
}

// keyDice is one key's count under its seeded plan and the permutations
// of its current block.
type keyDice struct {
	plan       string
	n          uint64
	block      uint64
	fail, slow []uint16
}

// NewDice returns dice with no key counted yet.
func NewDice() *Dice { return &Dice{keys: map[int64]*keyDice{}} }

// Roll decides the key's next request under p.
func (d *Dice) Roll(keyID int64, p Plan) Outcome {
	if !p.Rolls() {
		return Outcome{}
	}
	var fail, slow int
	if p.Seeded {
		fail, slow = d.next(keyID, p)
	} else {
		fail, slow = rand.IntN(PerMille), rand.IntN(PerMille)
	}
	var o Outcome
	switch {
	case fail < p.TooMany:
		o.Status = http.StatusTooManyRequests
	case fail < p.TooMany+p.Failed:
		o.Status = http.StatusInternalServerError
	}
	if slow < p.DelayShare {
		o.Delay = p.Delay
	}
	return o
}

// next is the seeded positions of the key's next request.
func (d *Dice) next(keyID int64, p Plan) (fail, slow int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	text := p.String()
	k := d.keys[keyID]
	if k == nil || k.plan != text {
		k = &keyDice{plan: text}
		d.keys[keyID] = k
	}
	block, at := k.n/PerMille, k.n%PerMille
	if k.fail == nil || block != k.block {
		k.block = block
		k.fail = permutation(p.Seed, 2*block)
		k.slow = permutation(p.Seed, 2*block+1)
	}
	k.n++
	return int(k.fail[at]), int(k.slow[at])
}

// permutation is a shuffle of 0..PerMille-1 drawn from PCG(seed, stream)
// by Fisher–Yates with its own bounded draw, so that it stays the same
// across Go releases.
func permutation(seed, stream uint64) []uint16 {
	r := rand.NewPCG(seed, stream)
	out := make([]uint16, PerMille)
	for i := range out {
		out[i] = uint16(i)
	}
	for i := len(out) - 1; i > 0; i-- {
		j := r.Uint64() % uint64(i+1)
		out[i], out[j] = out[j], out[i]
	}
	return out
}

package textentity

// Punycode (RFC 3492) parameters.
const (
	pcBase        = 36
	pcTMin        = 1
	pcTMax        = 26
	pcSkew        = 38
	pcDamp        = 700
	pcInitialBias = 72
	pcInitialN    = 128
	pcMaxInt      = 1<<31 - 1
)

// punycodeLen returns the length of the punycode encoding of label (without
// the "xn--" prefix), and false when the encoding would overflow.
func punycodeLen(label []rune) (int, bool) {
	basic := 0
	for _, c := range label {
		if c < 0x80 {
			basic++
		}
	}
	out := basic
	if basic > 0 {
		out++ // the delimiter
	}
	n, delta, bias := rune(pcInitialN), 0, pcInitialBias
	for h := basic; h < len(label); {
		m := rune(pcMaxInt)
		for _, c := range label {
			if c >= n && c < m {
				m = c
			}
		}
		if int(m-n) > (pcMaxInt-delta)/(h+1) {
			return 0, false
		}
		delta += int(m-n) * (h + 1)
		n = m
		for _, c := range label {
			if c < n {
				delta++
				if delta > pcMaxInt-1 {
					return 0, false
				}
			}
			if c != n {
				continue
			}
			q := delta
			for k := pcBase; ; k += pcBase {
				t := k - bias
				if t < pcTMin {
					t = pcTMin
				} else if t > pcTMax {
					t = pcTMax
				}
				if q < t {
					break
				}
				out++
				q = (q - t) / (pcBase - t)
			}
			out++
			bias = punycodeAdapt(delta, h+1, h == basic)
			delta = 0
			h++
		}
		delta++
		n++
	}
	return out, true
}

// punycodeAdapt is RFC 3492's bias adaptation.
func punycodeAdapt(delta, numPoints int, first bool) int {
	if first {
		delta /= pcDamp
	} else {
		delta /= 2
	}
	delta += delta / numPoints
	k := 0
	for delta > ((pcBase-pcTMin)*pcTMax)/2 {
		delta /= pcBase - pcTMin
		k += pcBase
	}
	return k + (pcBase-pcTMin+1)*delta/(delta+pcSkew)
}

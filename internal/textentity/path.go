package textentity

// pathEnd matches the possessive repetition of URL_VALID_PATH from p and
// returns its end.
func pathEnd(r []rune, p int) int {
	for {
		e, ok := pathSegment(r, p)
		if !ok || e == p {
			return p
		}
		p = e
	}
}

// pathSegment matches one URL_VALID_PATH at p: path characters and
// balanced parentheses, ending with an ending character or parentheses,
// as far as a backtracking matcher takes it. (Its other alternative, '@',
// path characters and '/', can only match where this one does.)
func pathSegment(r []rune, p int) (int, bool) {
	i := p
	for i < len(r) && isPathGeneral(r[i]) {
		i++
	}
	runStart, runEnd := p, i
	parenEnd := -1
	for i < len(r) && r[i] == '(' {
		be, ok := balancedParensAt(r, i)
		if !ok {
			break
		}
		parenEnd = be
		j := be
		for j < len(r) && isPathGeneral(r[j]) {
			j++
		}
		runStart, runEnd, i = be, j, j
	}
	for k := runEnd - 1; k >= runStart; k-- {
		if isPathEnding(r[k]) {
			return k + 1, true
		}
	}
	if parenEnd >= 0 {
		return parenEnd, true
	}
	return p, false
}

// balancedParensAt matches URL_BALANCED_PARENS at p ('('): path characters
// in parentheses, with at most one nested pair.
func balancedParensAt(r []rune, p int) (int, bool) {
	i := p + 1
	for i < len(r) && isPathGeneral(r[i]) {
		i++
	}
	if i >= len(r) {
		return 0, false
	}
	if r[i] == ')' {
		return i + 1, i > p+1
	}
	if r[i] != '(' {
		return 0, false
	}
	j := i + 1
	for j < len(r) && isPathGeneral(r[j]) {
		j++
	}
	if j == i+1 || j >= len(r) || r[j] != ')' {
		return 0, false
	}
	k := j + 1
	for k < len(r) && isPathGeneral(r[k]) {
		k++
	}
	if k >= len(r) || r[k] != ')' {
		return 0, false
	}
	return k + 1, true
}

// queryAt matches '?', query characters and a query ending character at
// p, as long as a backtracking matcher takes it.
func queryAt(r []rune, p int) (int, bool) {
	if p >= len(r) || r[p] != '?' {
		return 0, false
	}
	q := p + 1
	for q < len(r) && hasClass(r[q], clsQuery) {
		q++
	}
	for k := q - 1; k > p; k-- {
		if hasClass(r[k], clsQueryEnding) {
			return k + 1, true
		}
	}
	return 0, false
}

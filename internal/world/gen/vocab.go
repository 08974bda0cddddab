package gen

import (
	"strings"
	"unicode/utf8"
)

// word is a token with its length in code points.
type word struct {
	s string
	n int
}

func mkWord(s string) word { return word{s: s, n: utf8.RuneCountInString(s)} }

func mkWords(ss []string) []word {
	w := make([]word, len(ss))
	for i, s := range ss {
		w[i] = mkWord(s)
	}
	return w
}

// packWords stores words back to back in rank order, so that the frequent
// ones share a few cache lines.
func packWords(ss []string) []word {
	blob := strings.Join(ss, "")
	w := make([]word, len(ss))
	at := 0
	for i, s := range ss {
		w[i] = mkWord(blob[at : at+len(s)])
		at += len(s)
	}
	return w
}

// lang is one language's vocabulary with its samplers.
type lang struct {
	code     string
	joined   bool
	words    []word
	wordPick zipfPick
	tags     []word
	tagPick  zipfPick
	punct    []word
}

// vocab is everything text is made of. It does not depend on Config.Seed,
// so that the same rare words exist in every generated network.
type vocab struct {
	langs    []lang
	langPick alias // by share of users
	emoji    []word
	cashtags []word
	escapes  []word
}

// Zipf parameters: words have a long tail, hashtags a steeper head.
const (
	wordZipfS, wordZipfQ = 1.3, 2.7
	tagZipfS, tagZipfQ   = 1.2, 1.0
	tailTags             = 300
)

func newVocab() *vocab {
	g := newRNG(0, streamVocab, 0)
	v := &vocab{emoji: mkWords(emoji), cashtags: mkWords(cashtags), escapes: mkWords(escapes)}
	shares := make([]float64, len(languages))
	shared := strings.Fields(sharedTags)
	for i, spec := range languages {
		shares[i] = spec.share
		seen := map[string]bool{}
		var ws []string
		for _, s := range strings.Fields(spec.words) {
			if !seen[s] {
				seen[s] = true
				ws = append(ws, s)
			}
		}
		head := len(ws)
		for len(ws) < head+spec.tail {
			s := synthWord(g, spec.script, spec.code)
			if !seen[s] {
				seen[s] = true
				ws = append(ws, s)
			}
		}
		tags := append(strings.Fields(spec.tags), shared...)
		tagSeen := map[string]bool{}
		for _, t := range tags {
			tagSeen[t] = true
		}
		for n := 0; n < tailTags; {
			t := ws[head+g.intn(spec.tail)]
			if spec.script == "latin" || spec.script == "cyrillic" {
				t += ws[head+g.intn(spec.tail)]
			}
			if !tagSeen[t] {
				tagSeen[t] = true
				tags = append(tags, t)
				n++
			}
		}
		l := lang{code: spec.code, joined: spec.joined, words: packWords(ws), tags: packWords(tags), punct: mkWords(punctuationFor(spec.code))}
		l.wordPick = newZipfPick(len(ws), head, wordZipfS, wordZipfQ)
		l.tagPick = newZipfPick(len(tags), len(tags)-tailTags, tagZipfS, tagZipfQ)
		v.langs = append(v.langs, l)
	}
	v.langPick = newAlias(shares)
	return v
}

// Letters for synthetic words, per script.
var (
	latinOnsets  = strings.Fields("b c d f g k l m n p r s t v z br tr st ch sh gr pl qu fl")
	latinVowels  = strings.Fields("a e i o u ou ai ei y io")
	latinCodas   = []string{"", "", "", "n", "r", "s", "l", "x", "m", "nd", "st"}
	accented     = map[string]string{"es": "áéíóúñ", "fr": "éèêàçô", "de": "äöüß", "pt": "ãõáçê", "it": "àèìòù"}
	cyrOnsets    = strings.Fields("б в г д ж з к л м н п р с т ф х ч ш")
	cyrVowels    = strings.Fields("а е и о у ы я ю")
	arabicLetter = []rune("ابتثجحخدذرزسشصضطظعغفقكلمنهوي")
	hebrewLetter = []rune("אבגדהוזחטיכלמנסעפצקרשת")
	katakana     = []rune("アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン")
	hanzi        = []rune("人大中国年生学会家时工作发成用道行方后多天然经得动同心手前开新电气长话问风山水火木金土日月星花草鸟鱼书文明光云雨雪春秋海江河路城市")
)

// synthWord makes one rare word in a script; code picks accents for Latin.
func synthWord(g *rng, script, code string) string {
	var b strings.Builder
	switch script {
	case "cyrillic":
		for i, n := 0, g.between(2, 4); i < n; i++ {
			b.WriteString(pick(g, cyrOnsets))
			b.WriteString(pick(g, cyrVowels))
		}
	case "arabic":
		if g.chance(0.3) {
			b.WriteString("ال")
		}
		for i, n := 0, g.between(3, 6); i < n; i++ {
			b.WriteRune(pick(g, arabicLetter))
		}
	case "hebrew":
		for i, n := 0, g.between(3, 6); i < n; i++ {
			b.WriteRune(pick(g, hebrewLetter))
		}
	case "hangul":
		for i, n := 0, g.between(2, 3); i < n; i++ {
			b.WriteRune(rune(0xAC00 + g.intn(11172)))
		}
	case "ja":
		if g.chance(0.5) {
			for i, n := 0, g.between(3, 5); i < n; i++ {
				b.WriteRune(pick(g, katakana))
			}
			break
		}
		fallthrough
	case "zh":
		for i, n := 0, g.between(2, 3); i < n; i++ {
			b.WriteRune(pick(g, hanzi))
		}
	default:
		for i, n := 0, g.between(2, 4); i < n; i++ {
			b.WriteString(pick(g, latinOnsets))
			v := pick(g, latinVowels)
			if acc := accented[code]; acc != "" && g.chance(0.15) {
				v = string(pick(g, []rune(acc)))
			}
			b.WriteString(v)
		}
		b.WriteString(pick(g, latinCodas))
	}
	return b.String()
}

package textentity

import "testing"

// benchmarkPost is a typical post of about 200 characters.
const benchmarkPost = "RT @roost_dev: Shipping the new importer today 🚀 30k posts/s on a laptop, " +
	"details at https://example.com/blog/importer?ref=tw &amp; roost.dev/docs #golang #perf $GOOG cc @alice @bob"

// checkEntities verifies the invariants every extraction keeps: spans within
// the text, non-empty, in order and disjoint, each matching its text.
func checkEntities(t *testing.T, text string) {
	r := []rune(text)
	e := Extract(text)
	type entity struct {
		kind       string
		start, end int
		value      string // what the span must hold after its sign
		sign       bool   // whether the span starts with a sign
	}
	var all []entity
	for _, m := range e.Mentions {
		all = append(all, entity{"mention", m.Start, m.End, m.ScreenName, true})
	}
	for _, u := range e.URLs {
		all = append(all, entity{"url", u.Start, u.End, u.URL, false})
	}
	for _, h := range e.Hashtags {
		all = append(all, entity{"hashtag", h.Start, h.End, h.Text, true})
	}
	for _, c := range e.Symbols {
		all = append(all, entity{"cashtag", c.Start, c.End, c.Text, true})
	}
	for _, x := range all {
		if x.start < 0 || x.end > len(r) || x.start >= x.end {
			t.Fatalf("%s span [%d,%d) outside %d code points of %q", x.kind, x.start, x.end, len(r), text)
		}
		body := r[x.start:x.end]
		if x.sign {
			body = body[1:]
		}
		if string(body) != x.value {
			t.Fatalf("%s span [%d,%d) holds %q, value is %q (text %q)", x.kind, x.start, x.end, string(body), x.value, text)
		}
	}
	// Entities of any kinds are disjoint; each kind is in order.
	for i := range all {
		for j := range all {
			if i != j && all[i].start < all[j].end && all[j].start < all[i].end {
				t.Fatalf("%s [%d,%d) overlaps %s [%d,%d) in %q", all[i].kind, all[i].start, all[i].end,
					all[j].kind, all[j].start, all[j].end, text)
			}
		}
	}
	checkOrdered(t, "mention", text, len(e.Mentions), func(i int) int { return e.Mentions[i].Start })
	checkOrdered(t, "url", text, len(e.URLs), func(i int) int { return e.URLs[i].Start })
	checkOrdered(t, "hashtag", text, len(e.Hashtags), func(i int) int { return e.Hashtags[i].Start })
	checkOrdered(t, "cashtag", text, len(e.Symbols), func(i int) int { return e.Symbols[i].Start })
	// The finer functions must not panic either.
	_ = Mentions(text)
	_ = MentionsOrLists(text)
	_ = URLs(text)
	_ = Hashtags(text)
	_ = Cashtags(text)
	_ = ReplyScreenName(text)
}

func checkOrdered(t *testing.T, kind, text string, n int, start func(int) int) {
	for i := 1; i < n; i++ {
		if start(i) <= start(i-1) {
			t.Fatalf("%s entities out of order at %d in %q", kind, i, text)
		}
	}
}

func FuzzExtract(f *testing.F) {
	for _, seed := range []string{
		"", benchmarkPost, "@a@b #a#b $A$B", "http://t.co/" + "abc", "foo.com/(a(b)c)d.",
		"http://あ。い.com/x", "\u2066\u202Atwitter.com\u202C\u2069", "#\U00020021 ＃ｈａｓｈ ＠ｂｏｂ",
		"x.xn--", "RT:@a rt@b", "\xff\xfe@bob", "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.com",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkEntities(t, text)
	})
}

func BenchmarkExtract(b *testing.B) {
	b.SetBytes(int64(len(benchmarkPost)))
	b.ReportAllocs()
	for b.Loop() {
		Extract(benchmarkPost)
	}
}

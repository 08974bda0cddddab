package search

import "testing"

// benchQueries are queries of the kinds clients send.
var benchQueries = []string{
	"from:elonmusk",
	"@jack -from:jack",
	"from:nasa -filter:replies since:2024-01-01 until:2024-02-01",
	`(bitcoin OR ethereum OR "lightning network") lang:en min_faves:100 -filter:nativeretweets`,
	"conversation_id:1790000000000000000 filter:replies",
	"東京タワー OR スカイツリー #東京 within_time:3h",
	`"climate change" -"climate change denial" url:nytimes.com since_time:1700000000 max_id:1790000000000000000`,
}

func BenchmarkParse(b *testing.B) {
	for _, q := range benchQueries {
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(q, testNow); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkIndexText(b *testing.B) {
	for _, text := range []string{
		"Just setting up my twttr. Check https://t.co/AbCdEf123 for more — it's great! #launch @jack $TWTR",
		"Café crème à Paris: naïve façade, İstanbul, ΟΔΟΣ, Привет мир",
		"東京タワーに行きました！とても綺麗でした。iPhone用のケースも買いました。한국어 텍스트",
	} {
		b.Run(text[:10], func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				IndexText(text)
			}
		})
	}
}

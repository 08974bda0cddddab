// Package gen builds a deterministic synthetic social network: users with a
// power-law follower graph, posts with replies, self-threads, quotes and
// native reposts, likes (as many as a post's favorite count, up to
// likeCap), lists, communities, an organisation with affiliates,
// highlights, pinned posts, audio spaces and extended bios. Generate
// streams it into a social.Writer in batches; the same Config always
// yields the same batches, byte for byte.
//
// Text is multilingual (Latin with accents, CJK, Hangul, Cyrillic, Arabic,
// Hebrew, emoji) and drawn from Zipf-distributed vocabularies, so that search
// benchmarks meet very common and very rare terms. Entities carry code-point
// indices over the HTML-escaped text, as the network stores it.
package gen

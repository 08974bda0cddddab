// Package textentity finds the entities of a post's text (user mentions,
// URLs, hashtags and cashtags) the way the network's twitter-text library
// does, so that roost can give entities to imported posts that lack them
// and to the posts it generates.
//
// The matchers are hand-written scanners that reproduce twitter-text's
// regular expressions, backtracking order included, over the text's code
// points; indices are code points, start inclusive, end exclusive. URLs
// without a scheme are recognised by their top-level domain, from the list
// in tlds.go.
package textentity

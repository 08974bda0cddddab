package search

import (
	"sort"
	"strings"
)

// opValue is the value of one name:value operator.
type opValue struct {
	name string // operator name, lower case
	text string // value as written (without quotes), never empty
	pos  int    // byte offset of the value in the query
}

// opBuilder makes the node of an operator from its value. A nil node with
// a nil error means the operator only sets a flag of the query.
type opBuilder func(p *parser, v opValue) (Node, error)

// opSpec says how a name:value operator is parsed.
type opSpec struct {
	parse opBuilder
	// negate, when set, builds -name:value itself instead of a Not around
	// parse's node (-min_faves:N means "at most N").
	negate opBuilder
	// unsupported, when set, rejects the operator with this reason.
	unsupported string
}

const noGeo = "geo search is not supported: roost holds no geo data"

// operators is the table of name:value operators, by lower-case name.
// Adding an operator is one line here (plus its node and printer).
var operators = map[string]opSpec{
	"from":                 {parse: userOp(func(u string) Node { return From{User: u} })},
	"to":                   {parse: userOp(func(u string) Node { return To{User: u} })},
	"url":                  {parse: urlOp},
	"lang":                 {parse: langOp},
	"list":                 {parse: listOp},
	"filter":               {parse: filterOp},
	"exclude":              {parse: excludeOp},
	"include":              {parse: includeOp, negate: includeNegOp},
	"since":                {parse: dateOp(true)},
	"until":                {parse: dateOp(false)},
	"since_time":           {parse: unixOp(true)},
	"until_time":           {parse: unixOp(false)},
	"within_time":          {parse: withinOp},
	"since_id":             {parse: idBoundOp(false)},
	"max_id":               {parse: idBoundOp(true)},
	"conversation_id":      {parse: refOp(RefConversation)},
	"quoted_tweet_id":      {parse: refOp(RefQuotedTweet)},
	"quoted_user_id":       {parse: refOp(RefQuotedUser)},
	"in_reply_to_tweet_id": {parse: refOp(RefInReplyTo)},
	"min_faves":            {parse: minCountOp(Faves), negate: atMostOp(Faves)},
	"min_retweets":         {parse: minCountOp(Retweets), negate: atMostOp(Retweets)},
	"min_replies":          {parse: minCountOp(Replies), negate: atMostOp(Replies)},
	"near":                 {unsupported: noGeo},
	"geocode":              {unsupported: noGeo},
	"place":                {unsupported: noGeo},
	"place_country":        {unsupported: noGeo},
	"point_radius":         {unsupported: noGeo},
	"bounding_box":         {unsupported: noGeo},
	"within":               {unsupported: noGeo},
}

// filterNames are the canonical filter:/exclude: values of each FilterKind.
var filterNames = [...]string{
	FilterReplies:       "replies",
	FilterSelfThreads:   "self_threads",
	FilterQuote:         "quote",
	FilterNativeReposts: "nativeretweets",
	FilterRetweets:      "retweets",
	FilterMedia:         "media",
	FilterImages:        "images",
	FilterVideos:        "videos",
	FilterLinks:         "links",
	FilterMentions:      "mentions",
	FilterHashtags:      "hashtags",
	FilterHasEngagement: "has_engagement",
	FilterVerified:      "verified",
	FilterBlueVerified:  "blue_verified",
}

// filterAliases are other filter values the website accepts for a kind.
var filterAliases = map[string]FilterKind{
	"native_video": FilterVideos,
	"twimg":        FilterImages,
}

// unsupportedFilters are website filters roost cannot answer.
var unsupportedFilters = map[string]bool{
	"follows": true, "safe": true, "news": true, "spaces": true, "periscope": true,
	"vine": true, "pro_video": true, "consumer_video": true, "trusted": true, "social": true,
}

// countNames and refNames are the operator names of CountKind and RefKind.
var (
	countNames = [...]string{Faves: "min_faves", Retweets: "min_retweets", Replies: "min_replies"}
	refNames   = [...]string{
		RefConversation: "conversation_id",
		RefQuotedTweet:  "quoted_tweet_id",
		RefQuotedUser:   "quoted_user_id",
		RefInReplyTo:    "in_reply_to_tweet_id",
	}
)

func userOp(mk func(string) Node) opBuilder {
	return func(_ *parser, v opValue) (Node, error) {
		name, pos := v.text, v.pos
		if name[0] == '@' {
			name, pos = name[1:], pos+1
		}
		if !isUserName(name) {
			return nil, errAt(pos, "%s: invalid user name %q: letters, digits and _ only", v.name, name)
		}
		if err := checkUserLen(v.name, name, pos); err != nil {
			return nil, err
		}
		return mk(name), nil
	}
}

func urlOp(_ *parser, v opValue) (Node, error) {
	if strings.IndexFunc(v.text, isSpaceRune) >= 0 {
		return nil, errAt(v.pos, "url: must not contain spaces")
	}
	if len(v.text) < 2 {
		return nil, errAt(v.pos, "url: value too short: at least 2 characters")
	}
	return URL{Sub: v.text}, nil
}

func langOp(_ *parser, v opValue) (Node, error) {
	code := strings.ToLower(v.text)
	if !isLangCode(code) {
		return nil, errAt(v.pos, "lang: expects a language code such as en, pt-br or und")
	}
	return Lang{Code: code}, nil
}

func listOp(_ *parser, v opValue) (Node, error) {
	id, err := parseID(v, "a numeric list id")
	if err != nil {
		return nil, err
	}
	return ListMembers{ListID: id}, nil
}

func filterOp(_ *parser, v opValue) (Node, error) {
	k, err := filterKind(v)
	if err != nil {
		return nil, err
	}
	return Filter{Kind: k}, nil
}

func excludeOp(_ *parser, v opValue) (Node, error) {
	k, err := filterKind(v)
	if err != nil {
		return nil, err
	}
	return Not{Child: Filter{Kind: k}}, nil
}

// includeOp handles include:nativeretweets, which lets native reposts match.
func includeOp(p *parser, v opValue) (Node, error) {
	if err := checkInclude(v); err != nil {
		return nil, err
	}
	p.include = true
	return nil, nil
}

// includeNegOp handles -include:nativeretweets: native reposts are left out
// by default, so it changes nothing.
func includeNegOp(_ *parser, v opValue) (Node, error) { return nil, checkInclude(v) }

func checkInclude(v opValue) error {
	if !strings.EqualFold(v.text, "nativeretweets") {
		return errAt(v.pos, "include: expects nativeretweets")
	}
	return nil
}

func filterKind(v opValue) (FilterKind, error) {
	name := strings.ToLower(v.text)
	for k, n := range filterNames {
		if n == name {
			return FilterKind(k), nil
		}
	}
	if k, ok := filterAliases[name]; ok {
		return k, nil
	}
	if unsupportedFilters[name] {
		return 0, errAt(v.pos, "%s:%s is not supported", v.name, name)
	}
	known := append([]string(nil), filterNames[:]...)
	sort.Strings(known)
	return 0, errAt(v.pos, "%s: unknown filter %q; expected one of %s", v.name, v.text, strings.Join(known, ", "))
}

func dateOp(since bool) opBuilder {
	return func(_ *parser, v opValue) (Node, error) {
		t, err := parseDate(v)
		if err != nil {
			return nil, err
		}
		return TimeBound{Since: since, T: t}, nil
	}
}

func unixOp(since bool) opBuilder {
	return func(_ *parser, v opValue) (Node, error) {
		t, err := parseUnix(v)
		if err != nil {
			return nil, err
		}
		return TimeBound{Since: since, T: t}, nil
	}
}

func withinOp(p *parser, v opValue) (Node, error) {
	d, err := parseWithin(v)
	if err != nil {
		return nil, err
	}
	return TimeBound{Since: true, T: unixUTC(p.now.Add(-d).Unix())}, nil
}

func idBoundOp(max bool) opBuilder {
	return func(_ *parser, v opValue) (Node, error) {
		id, err := parseID(v, "a post id")
		if err != nil {
			return nil, err
		}
		return IDBound{Max: max, ID: id}, nil
	}
}

func refOp(kind RefKind) opBuilder {
	return func(_ *parser, v opValue) (Node, error) {
		what := "a post id"
		if kind == RefQuotedUser {
			what = "a user id"
		}
		id, err := parseID(v, what)
		if err != nil {
			return nil, err
		}
		return Ref{Kind: kind, ID: id}, nil
	}
}

func minCountOp(kind CountKind) opBuilder {
	return func(_ *parser, v opValue) (Node, error) {
		n, err := parseCount(v)
		if err != nil {
			return nil, err
		}
		return MinCount{Kind: kind, N: n}, nil
	}
}

// atMostOp handles -min_*:N, the website's "at most N".
func atMostOp(kind CountKind) opBuilder {
	return func(_ *parser, v opValue) (Node, error) {
		n, err := parseCount(v)
		if err != nil {
			return nil, err
		}
		return Not{Child: MinCount{Kind: kind, N: n + 1}}, nil
	}
}

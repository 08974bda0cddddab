package client

import "github.com/roostapi/roost/client/wire"

// The API's answers, in the shapes package wire defines.
type (
	// Tweet is a post in the full shape, which every shape of a post
	// decodes into: a compact post leaves ID, the integer reference ids
	// and the user's ID 0.
	Tweet = wire.FullPost
	// Entities are the mentions, links, hashtags and cashtags of a post.
	Entities = wire.Entities
	// Mention is a mentioned user.
	Mention = wire.Mention
	// URL is a link.
	URL = wire.URL
	// Tag is a hashtag or a cashtag (without # or $).
	Tag = wire.Tag
	// User is a profile. ID is 0 in the profile of a compact post.
	User = wire.Profile
	// Member is a community member.
	Member = wire.Member
	// List is a list object; OwnerID reads its owner's id.
	List = wire.List
	// Space is an audio space.
	Space = wire.Space
	// ExtendedBio is a user's long bio, one block a paragraph; Text joins
	// them.
	ExtendedBio = wire.ExtendedBio
	// Commented answers whether a user replied to a post.
	Commented = wire.Commented
	// Retweeted answers whether a user reposted a post.
	Retweeted = wire.Retweeted
	// Following answers whether one user follows another.
	Following = wire.Following
	// Balance is what is left of the key's credit; Micros reads it.
	Balance = wire.Balance
	// Time is a timestamp as the API writes it.
	Time = wire.Time

	// Monitor is a monitor as the server answers it.
	Monitor = wire.Monitor
	// MonitorDetails is a monitor with its events by state and its last
	// delivery attempts.
	MonitorDetails = wire.MonitorDetails
	// Delivery is one attempt to deliver an event to a webhook.
	Delivery = wire.Delivery
	// MonitorsPage is one page of a key's monitors (GET /monitors).
	MonitorsPage = wire.MonitorsPage
	// MonitorsMeta places a page of monitors.
	MonitorsMeta = wire.MonitorsMeta
	// Webhook answers POST /user/webhook with the key's signing secret.
	Webhook = wire.Webhook
)

// Page is one page of a paged endpoint: its items and the cursor of the
// next page ("" on the last page).
type Page[T any] struct {
	Items      []T
	NextCursor string
	// Raw is the response body as the server sent it.
	Raw []byte
}

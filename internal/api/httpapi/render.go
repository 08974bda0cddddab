package httpapi

import (
	"reflect"

	"github.com/roostapi/roost/client/wire"
)

// ProfileType and FullPostType are the Go types of the public profile
// and of the full post shape that NewRenderer's User and Posts write, for
// the documents of APIs that answer with them (the admin world API).
func ProfileType() reflect.Type { return reflect.TypeFor[wire.Profile]() }

// FullPostType: see ProfileType.
func FullPostType() reflect.Type { return reflect.TypeFor[wire.FullPost]() }

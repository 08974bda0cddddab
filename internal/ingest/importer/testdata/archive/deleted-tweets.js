window.YTD.deleted_tweets.part0 = [
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "1790000000000000071"
          ],
          "editableUntil" : "2024-05-13T12:00:00.000Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
      "entities" : {
        "hashtags" : [ ],
        "symbols" : [ ],
        "user_mentions" : [ ],
        "urls" : [ ]
      },
      "display_text_range" : [
        "0",
        "33"
      ],
      "favorite_count" : "0",
      "id_str" : "1790000000000000071",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "1790000000000000071",
      "created_at" : "Mon May 13 11:00:00 +0000 2024",
      "favorited" : false,
      "full_text" : "a post I deleted later, regretted",
      "lang" : "en",
      "deleted_at" : "Tue May 14 09:30:00 +0000 2024"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "1780000000000000072"
          ],
          "editableUntil" : "2024-04-16T08:00:00.000Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/android\" rel=\"nofollow\">Twitter for Android</a>",
      "entities" : {
        "hashtags" : [ ],
        "symbols" : [ ],
        "user_mentions" : [
          {
            "name" : "Someone Else",
            "screen_name" : "someone_else",
            "indices" : [
              "0",
              "13"
            ],
            "id_str" : "9100000000000000080",
            "id" : "9100000000000000080"
          }
        ],
        "urls" : [ ]
      },
      "display_text_range" : [
        "0",
        "31"
      ],
      "favorite_count" : "1",
      "in_reply_to_status_id_str" : "1780000000000000001",
      "id_str" : "1780000000000000072",
      "in_reply_to_user_id" : "9100000000000000080",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "1780000000000000072",
      "in_reply_to_status_id" : "1780000000000000001",
      "created_at" : "Tue Apr 16 07:00:00 +0000 2024",
      "favorited" : false,
      "full_text" : "@someone_else never mind that",
      "lang" : "en",
      "in_reply_to_screen_name" : "someone_else",
      "in_reply_to_user_id_str" : "9100000000000000080",
      "deleted_at" : "Tue Apr 16 07:05:00 +0000 2024"
    }
  }
]

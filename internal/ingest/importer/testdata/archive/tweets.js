window.YTD.tweets.part0 = [
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "1790000000000000070"
          ],
          "editableUntil" : "2024-05-13T11:00:00.000Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "kept",
            "indices" : [
              "20",
              "25"
            ]
          }
        ],
        "symbols" : [ ],
        "user_mentions" : [ ],
        "urls" : [ ]
      },
      "display_text_range" : [
        "0",
        "25"
      ],
      "favorite_count" : "2",
      "id_str" : "1790000000000000070",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "1790000000000000070",
      "created_at" : "Mon May 13 10:00:00 +0000 2024",
      "favorited" : false,
      "full_text" : "a post that stays, #kept",
      "lang" : "en"
    }
  },
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
      "lang" : "en"
    }
  }
]

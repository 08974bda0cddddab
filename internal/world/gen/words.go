package gen

// langSpec describes one language of the generated text: its share of
// users, its most frequent real words (the head of its Zipf vocabulary),
// its hashtags, and the script and size of its synthetic tail of rare words.
type langSpec struct {
	code   string
	share  float64
	joined bool // words written without spaces between them (CJK)
	script string
	tail   int
	words  string
	tags   string
}

// languages lists every language, in a fixed order.
var languages = [...]langSpec{
	{code: "en", share: 0.40, joined: false, script: "latin", tail: 20000,
		words: `the to and a of is in it you that i for this on my be with just so are have not but we like at all what your me was if do get can out about up new one time people now more how day love know good today think great really go want see make back still work year thank life first best need right never world going last much game news week happy data team free via open live night home thing better post looks morning coffee music city watch read build code release update launch search model server database weather football election market price bitcoin rain summer weekend friends family school food movie book art photo story video running travel water health science space climate energy policy startup design product feature bug deploy golang rust python sqlite postgres kubernetes latency benchmark throughput cursor pagination algorithm garden bicycle mountain ocean river library museum concert festival breakfast dinner kitchen recipe sandwich pizza burger tomato avocado chocolate umbrella thunder sunset sunrise galaxy telescope neuron protein vaccine hospital nurse teacher student engineer architect lawyer senate parliament budget inflation mortgage salary invoice spreadsheet keyboard monitor laptop charger battery airport passport luggage hotel beach island volcano glacier desert forest squirrel penguin octopus dolphin giraffe elephant hedgehog raccoon serendipity quixotic ephemeral petrichor halcyon mellifluous zeitgeist ineffable lagniappe susurrus defenestration sesquipedalian`,
		tags:  `NowPlaying BookTwitter IndieDev Caturday GameDev DataScience MachineLearning Election2026 SuperBowl`},
	{code: "es", share: 0.10, joined: false, script: "latin", tail: 1500,
		words: `que de no la el y en a los es por un me con lo para una se mi las pero más muy ya si como hoy todo bien día gracias año vida amor gente mundo tiempo siempre nada mañana noche fútbol ciudad música corazón canción pequeño niño también después así qué cómo está porque fiesta playa café comida trabajo familia amigos sueño libro película equipo partido elecciones lluvia calor invierno verano montaña río árbol jardín cocina abuela perro gato madrugada esperanza mariposa murciélago ferrocarril desayuno almuerzo cerveza tortilla empanada`,
		tags:  `LaLiga FelizLunes Fútbol México España BuenosDías`},
	{code: "ja", share: 0.10, joined: true, script: "ja", tail: 1500,
		words: `の に は を た が で て と し れ さ ある いる も する から な こと として 今日 本当 私 東京 日本 仕事 時間 友達 映画 音楽 ラーメン 猫 犬 天気 週末 楽しい ありがとう おはよう 新しい 電車 会社 桜 写真 好き 可愛い ゲーム アニメ 大阪 京都 富士山 お茶 寿司 雨 夏 冬 花火 温泉 新幹線 弁当 コーヒー 勉強 試験 宇宙 森 海 山 川 空 夢 心 声 光`,
		tags:  `東京 拡散希望 猫 アニメ 今日の一枚 ラーメン`},
	{code: "pt", share: 0.06, joined: false, script: "latin", tail: 1200,
		words: `que de não o a e é do da em um para com uma os no se na por mais as dos como mas foi ao ele das tem à seu sua ou ser quando muito já hoje obrigado vida amor dia gente coração ação são futebol saudade feliz cidade música manhã noite praia cerveja trabalho família amigos chuva sol festa açaí pão queijo café avó cachorro gato jabuticaba paralelepípedo`,
		tags:  `Brasileirão SãoPaulo BomDia futebol`},
	{code: "fr", share: 0.05, joined: false, script: "latin", tail: 1200,
		words: `de la le et les des en un une est pas que je pour qui sur à ça on avec mais très été être plus fait tout bien merci jour vie temps monde gens soirée café école français équipe élection météo pluie forêt garçon noël cœur hôpital théâtre fromage baguette boulangerie château rivière montagne voiture vélo déjà peut-être aujourd’hui bibliothèque grève printemps automne hiver été fenêtre escargot pamplemousse chuchotement`,
		tags:  `Paris café Ligue1 Météo JO2026`},
	{code: "ru", share: 0.05, joined: false, script: "cyrillic", tail: 1200,
		words: `и в не на я что он с это а как но по все она так его к у же вы за бы сегодня время жизнь Москва Россия спасибо друзья работа погода музыка кофе футбол новости любовь город зима лето дождь снег книга кино утро вечер метро дача борщ`,
		tags:  `Москва новости футбол`},
	{code: "ar", share: 0.05, joined: false, script: "arabic", tail: 1200,
		words: `في من على أن إلى عن مع هذا كان ما لا هو التي الله اليوم شكرا الحب الحياة العالم الناس مصر القاهرة السعودية كرة القدم قهوة صباح الخير مساء جميل رمضان عيد مبارك بيت مدرسة عمل سفر بحر مدينة كتاب موسيقى فيلم`,
		tags:  `مصر رمضان_كريم السعودية كرة_القدم`},
	{code: "it", share: 0.05, joined: false, script: "latin", tail: 1000,
		words: `che di e il la non un è per una sono mi con ma si ho lo come più anche oggi grazie bella vita amore tempo città caffè perché però così già pizza calcio domani sera mattina famiglia amici mare montagna gelato pasta vino treno lavoro festa chiesa piazza sprezzatura`,
		tags:  `SerieA Roma Sanremo caffè`},
	{code: "de", share: 0.04, joined: false, script: "latin", tail: 1200,
		words: `der die und das ist nicht ich zu es mit den auf für ein eine auch sich aber so heute noch schon mehr wie Zeit Leben Welt Menschen schön Straße Grüße Bahn Fußball Wetter Frühstück Mädchen über natürlich Glück Wochenende Kaffee Kuchen Brötchen Fahrrad Wald Berg Fluss Stadt Arbeit Feierabend Gemütlichkeit Schadenfreude Fernweh Kindergarten Zugverspätung Datenschutz Steuererklärung Weltanschauung Eichhörnchen`,
		tags:  `Bundesliga Fußball Berlin Datenschutz Tatort`},
	{code: "zh", share: 0.04, joined: true, script: "zh", tail: 1200,
		words: `的 是 不 了 在 人 有 我 他 这 个 们 中 来 上 大 为 和 国 地 到 以 说 时 要 就 出 会 今天 我们 中国 北京 上海 朋友 工作 时间 喜欢 电影 音乐 天气 周末 谢谢 新闻 手机 学习 咖啡 熊猫 春节 饺子 火锅 城市 地铁 高铁 长城 月亮 太阳 朋友圈 程序员`,
		tags:  `北京 春节 熊猫 上海`},
	{code: "ko", share: 0.04, joined: false, script: "hangul", tail: 1000,
		words: `이 그 저 것 수 나 우리 오늘 정말 사람 시간 서울 한국 친구 사랑 음악 영화 감사합니다 안녕하세요 날씨 주말 커피 학교 회사 행복 노래 게임 축구 김치 라면 지하철 바다 하늘 꿈 마음 부산 여행 사진`,
		tags:  `서울 케이팝 오늘의사진 축구`},
	{code: "he", share: 0.02, joined: false, script: "hebrew", tail: 800,
		words: `של את על לא זה הוא עם אני גם כל מה היום תודה שבת שלום ישראל ירושלים תל אביב אהבה חיים עולם אנשים קפה מוזיקה כדורגל בוקר טוב ערב ים עיר ספר סרט עבודה משפחה חברים`,
		tags:  `שבת_שלום ישראל תל_אביב`},
}

// sharedTags are hashtags (without '#') used in every language.
const sharedTags = `AI golang rust opensource news breaking tech startup crypto bitcoin football NBA F1 music photography travel art 100DaysOfCode MondayMotivation ThrowbackThursday WorldCup climate science space`

// cashtags are ticker symbols (without '$').
var cashtags = []string{"BTC", "ETH", "AAPL", "TSLA", "NVDA", "GOOG", "MSFT", "SPY", "AMZN", "META", "SOL", "DOGE", "QQQ", "AMD", "NFLX", "COIN", "XRP", "PLTR"}

// emoji include multi-code-point sequences (modifiers, ZWJ, flags, VS16).
var emoji = []string{"😂", "❤️", "🔥", "👍", "🙏", "😭", "✨", "🎉", "😍", "🤔", "👀", "💯", "🚀", "🙌", "😅", "🥺", "💪", "👏",
	"🌸", "☕", "🇯🇵", "🇧🇷", "👍🏽", "👨‍💻", "🏳️‍🌈", "🤷‍♀️", "😊", "🥳", "🌍", "📈", "⚽", "🎶", "🍜", "📷", "🐈", "🌧️"}

// escapes are tokens holding characters the network stores HTML-escaped.
var escapes = []string{"&amp;", "&lt;3", "-&gt;", "&lt;-", "&gt;&gt;", "Q&amp;A", "R&amp;D"}

// punctuationFor lists the punctuation appended to words of a language.
func punctuationFor(code string) []string {
	switch code {
	case "ja":
		return []string{"、", "。", "！", "？"}
	case "zh":
		return []string{"，", "。", "！", "？"}
	case "ar":
		return []string{"،", ".", "؟", "!"}
	default:
		return []string{",", ".", "!", "?", "…", ":"}
	}
}

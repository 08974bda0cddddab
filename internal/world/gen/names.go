package gen

import "strings"

// Name parts for screen names (ASCII) and display names (per language).
var (
	handleFirst = strings.Fields(`maria john kenji yuki ahmed fatima david noa lucas emma olivia li wei chen sofia mateo ivan olga jin
minjun aisha omar yael lior pierre camille hans lena giulia marco joao ana carlos lucia sarah james priya raj amara kwame hana sora
diego elena nina tom alex sam kai zoe leo mia noah liam ava ella hugo ines yusuf layla`)
	handleLast = strings.Fields(`smith garcia tanaka kim cohen haddad muller rossi silva dubois ivanov wang nguyen lopez martin schmidt
suzuki park levi khan patel santos moreau bianchi novak sato lee ali brown jones miller davis wilson taylor moore clark lewis walker young`)
	handleTopics = strings.Fields(`tech news daily dev art photo music games crypto fit food travel code data cats books film sports design
science space weather memes trader coffee hq official labs studio club`)
	organisations = [][2]string{
		{"RoostLabs", "Roost Labs"}, {"NorthwindNews", "Northwind News 📰"}, {"AcmeAnalytics", "Acme Analytics"},
		{"GlobexCorp", "Globex Corporation"}, {"InitechHQ", "Initech"},
	}
)

// displayNames holds given and family names per language; first is written
// first in the display name unless familyFirst.
type displayNames struct {
	given, family []string
	familyFirst   bool
	sep           string
}

func namesFor(code string) displayNames {
	switch code {
	case "ja":
		return displayNames{given: strings.Fields("太郎 花子 健二 由紀 翔 さくら 陽菜 蓮 美咲 大輔"), family: strings.Fields("山田 佐藤 鈴木 高橋 田中 伊藤 渡辺 中村"), familyFirst: true, sep: " "}
	case "zh":
		return displayNames{given: strings.Fields("伟 芳 娜 敏 静 磊 洋 婷 子涵 浩然"), family: strings.Fields("王 李 张 刘 陈 杨 赵 黄"), familyFirst: true}
	case "ko":
		return displayNames{given: strings.Fields("민준 서연 지호 하은 도윤 수아 예준"), family: strings.Fields("김 이 박 최 정 강"), familyFirst: true}
	case "ru":
		return displayNames{given: strings.Fields("Иван Ольга Дмитрий Анна Сергей Мария Алексей"), family: strings.Fields("Петров Смирнова Иванов Кузнецова Попов Соколова"), sep: " "}
	case "ar":
		return displayNames{given: strings.Fields("محمد أحمد فاطمة علي مريم يوسف نور"), family: strings.Fields("العلي حسن الحربي خالد منصور"), sep: " "}
	case "he":
		return displayNames{given: strings.Fields("דוד נועה יוסי מיכל אורי תמר"), family: strings.Fields("כהן לוי מזרחי פרץ ביטון"), sep: " "}
	case "es":
		return displayNames{given: strings.Fields("María José Lucía Andrés Sofía Martín Iñaki"), family: strings.Fields("García López Martínez Rodríguez Pérez Núñez"), sep: " "}
	case "fr":
		return displayNames{given: strings.Fields("François Chloé Léa Jérôme Hélène Théo Anaïs"), family: strings.Fields("Dubois Lefèvre Moreau Girard Bézier"), sep: " "}
	case "de":
		return displayNames{given: strings.Fields("Jürgen Lena Björn Anja Matthias Käthe"), family: strings.Fields("Müller Schäfer Weiß Köhler Groß"), sep: " "}
	case "pt":
		return displayNames{given: strings.Fields("João Ana Conceição Luís Beatriz Tomás"), family: strings.Fields("Silva Gonçalves Araújo Simões Brandão"), sep: " "}
	case "it":
		return displayNames{given: strings.Fields("Giulia Marco Niccolò Chiara Luca Federica"), family: strings.Fields("Rossi Bianchi Esposito Ricci Romano"), sep: " "}
	default:
		return displayNames{given: strings.Fields("Sarah James Emily Michael Olivia Daniel Priya Kwame Zoë Aoife"), family: strings.Fields("Smith Johnson O'Brien Williams Brown Taylor Nguyen Okafor"), sep: " "}
	}
}

// locations mix scripts; empty ones leave the field blank.
var locations = []string{"Tokyo, Japan", "東京都 渋谷区", "São Paulo, Brasil", "Paris, France", "Berlin", "القاهرة، مصر", "תל אביב-יפו",
	"서울특별시", "Москва", "New York, NY", "London, England", "Ciudad de México", "Lagos, Nigeria", "Mumbai", "Toronto, Ontario",
	"Sydney 🇦🇺", "Earth 🌍", "the internet", "Zürich", "Montréal, QC", "", "", "", ""}

// listNames and communityNames name lists and communities.
var (
	listNames = []string{"Tech news", "Golang", "Data people", "Artistas", "ニュース", "أخبار", "Favourites ✨", "Journalists",
		"Football ⚽", "Science", "Friends", "Founders", "Photographers 📷", "Bücher", "Cuisine", "K-pop", "Open source", "Climate", "Crypto", "読書"}
	communityNames = []string{"Go Developers", "Photography 📷", "アニメ好き", "Cozy Gamers", "Data Science", "Football ⚽", "K-pop Stans",
		"Fórmula 1", "Cocina Casera", "Astronomy 🔭", "Indie Hackers", "Bookworms", "Rustaceans", "Café Philo", "Running Club", "Plant Parents 🌱"}
)

// sources are the clients posts are written from, as HTML anchors.
var sources = []string{
	`<a href="https://mobile.roost.example" rel="nofollow">Web App</a>`,
	`<a href="https://roost.example/download/iphone" rel="nofollow">Roost for iPhone</a>`,
	`<a href="https://roost.example/download/android" rel="nofollow">Roost for Android</a>`,
	`<a href="https://roost.example/download/ipad" rel="nofollow">Roost for iPad</a>`,
	`<a href="https://buffer.example" rel="nofollow">Buffer</a>`,
	`<a href="https://ifttt.example" rel="nofollow">IFTTT</a>`,
	`<a href="https://deck.roost.example" rel="nofollow">Deck</a>`,
}

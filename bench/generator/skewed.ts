/**
 * The vocabulary and draws of the `skewed` data shape (shape.ts): a few hundred first and last
 * names whose head (the first HEAD_NAMES of each list, common German surnames with umlauts among
 * them) takes half of all draws, so each head name is shared by thousands of contacts at M; message
 * word slots that take one of HEAD_WORDS most of the time; and conversations whose contact is, for
 * half of them, drawn Zipf-like over the contacts, so a handful of contacts hold thousands (M) to
 * tens of thousands (L) of conversations.
 */
import { int, type RowRandom } from './sql-random.js';

const unique = (text: string): string[] => [...new Set(text.trim().split(/\s+/))];

/** Most common first (the head), then the rest. */
export const SKEWED_FIRST_NAMES = unique(`
  Thomas Anna Michael Maria Jonas Laura David Sarah Daniel Julia Andreas Lena Stefan Sophie Jürgen Emma Peter
  Hannah Lukas Sofia Jan Mia Alexander Lea Björn
  James Liam Noah Oliver Ethan Lucas Mateo Leo Hugo Felix Ben Adam Ryan Mark Paul John Robert Carlos Pedro José
  Luca Ivan Wei Chen Kenji Hiroshi Omar Ahmed Mohammed Tariq Ravi Arjun Sanjay Kwame Kofi Dmitri Rafael Tomás
  Mikael Søren Victor André Marcus Patrick Connor Samuel Diego Jörg Günter Sören Uwe Klaus Wolfgang Dieter Frank
  Matthias Markus Tobias Florian Sebastian Christian Martin Tim Niklas Moritz Philipp Maximilian Finn Elias
  Henrik Lars Nils Ole Erik Sven Gustav Anders Mats Johan Pierre Louis Antoine Julien Nicolas Mathieu Marco
  Giuseppe Francesco Alessandro Matteo Javier Miguel Pablo Alejandro Sergio João Tiago Bruno Piotr Krzysztof
  Tomasz Paweł Jakub Ali Yusuf Mehmet Emre Hassan Karim Youssef Amir Raj Vikram Rahul Aditya Hao Jun Lei Takeshi
  Yuto Haruto Min Joon Seo Tuan Minh Olga Elena Katya Natalia Irina Ingrid Astrid Freya Sigrid Karin Birgit
  Ursula Monika Petra Sabine Claudia Andrea Nicole Stefanie Katrin Jana Jessica Vanessa Lisa Marie Charlotte
  Clara Amelie Emilia Ella Luisa Johanna Greta Frieda Ida Käthe Bärbel Chloé Camille Manon Inès Léa Zoë Giulia
  Chiara Francesca Lucía Carmen Isabel Ana Beatriz Mariana Zofia Agnieszka Aisha Fatima Layla Leila Zara Priya
  Ananya Mei Yuki Sakura Hana Jia Amara Grace Ava Amelia Olivia Emily Alice Nora Rosa Eva Nina
`);

/** Most common first (the head, umlauts among them), then the rest. */
export const SKEWED_LAST_NAMES = unique(`
  Müller Schmidt Schneider Fischer Weber Meyer Schröder Jäger Wagner Becker Schäfer Smith Garcia Nguyen Kim
  Wang Li Patel Silva Khan Krüger Köhler Hoffmann Schulz Johnson
  Koch Bauer Richter Klein Wolf Neumann Schwarz Zimmermann Braun Hofmann Hartmann Lange Schmitt Werner Schmitz
  Krause Meier Lehmann Schmid Schulze Maier Herrmann König Walter Mayer Huber Kaiser Fuchs Peters Lang
  Scholz Möller Weiß Jung Hahn Schubert Vogel Friedrich Keller Günther Frank Berger Winkler Roth Beck Lorenz
  Baumann Franke Albrecht Schuster Simon Ludwig Böhm Winter Kraus Martin Schumacher Krämer Vogt Stein Otto
  Sommer Groß Seidel Heinrich Brandt Haas Schreiber Graf Schulte Dietrich Ziegler Kuhn Kühn Pohl Engel Horn
  Busch Bergmann Thomas Voigt Sauer Arnold Wolff Pfeiffer Lindner Förster Löffler Brückner Gärtner Dörr
  Brown Williams Jones Taylor Anderson Thompson White Harris Clark Lewis Walker Hall Young King Wright Hill
  Scott Green Baker Adams Nelson Carter Mitchell Roberts Campbell Murphy Kelly Byrne O'Brien Walsh Ryan
  Rodríguez Martínez González Hernández López Pérez Sánchez Ramírez Torres Flores Rivera Gómez Díaz Reyes
  Morales Ortiz Cruz Fernández Ruiz Álvarez Romero Navarro Costa Santos Oliveira Souza Pereira Ferreira Alves
  Lima Carvalho Ribeiro Dubois Moreau Laurent Lefebvre Bernard Petit Richard Durand Leroy Roux Fournier
  Girard Bonnet Lambert Rossi Russo Ferrari Esposito Bianchi Romano Colombo Ricci Marino Greco Bruno Gallo
  Conti Nowak Kowalski Wiśniewski Wójcik Kowalczyk Kamiński Lewandowski Zieliński Szymański Woźniak Dąbrowski
  Novák Svoboda Dvořák Černý Horváth Nagy Kovács Szabó Tóth Ivanova Ivanov Petrov Smirnov Popescu Popov
  Jensen Nielsen Hansen Pedersen Andersen Larsen Johansson Andersson Karlsson Nilsson Eriksson Svensson
  Lindberg Virtanen Korhonen Mäkinen Nieminen Hämäläinen Yılmaz Kaya Demir Şahin Çelik Öztürk Aydın Haddad
  Mansour Nasser Saleh Hussein Ali Ahmed Hassan Chen Zhang Liu Yang Huang Zhao Wu Zhou Xu Sun Ma Zhu Hu Guo
  Sato Suzuki Takahashi Tanaka Watanabe Ito Yamamoto Nakamura Kobayashi Kato Lee Park Choi Kang Cho
  Tran Le Pham Hoang Phan Vu Singh Kumar Sharma Gupta Das Reddy Iyer Nair Mehta Shah Rao Joshi Okafor Mensah
  Mwangi Otieno Abubakar Adeyemi Okonkwo Diallo Traoré Ndiaye Boateng Asante
`);

/** Head names per list (first and last), which take half of the draws between them. */
export const HEAD_NAMES = 25;

/** Head words (the first of WORDS: order, account, password); a message word slot takes one with this probability. */
export const HEAD_WORDS = 3;
export const HEAD_WORD_SHARE = 0.8;

/** Share of conversations whose contact is drawn Zipf-like (the rest: uniformly over the contacts). */
export const CONCENTRATED_SHARE = 0.5;

/**
 * A prime above every contact count the scales allow (50 million), so coprime to it: multiplying
 * by it permutes the contacts. Knuth's multiplicative-hash constant, whose residues scatter well.
 */
const SCATTER_PRIME = 2_654_435_761;

/** SQL: a 1-based index into a list of `n`, half of the draws on its first `head` entries. */
export function headOrUniform(r: RowRandom, key: string, salt: number, head: number, n: number): string {
  return `(1 + CASE WHEN ${r.unit(key, salt)} < 0.5 THEN ${r.below(key, salt + 1, head)} ELSE ${r.below(key, salt + 1, n)} END)`;
}

/**
 * SQL: a 1-based contact index of `contacts` drawn Zipf-like, the ranks scattered over the
 * contacts by a multiplicative permutation, so the busiest contacts are not the oldest ones.
 */
export function concentratedContact(r: RowRandom, key: string, salt: number, contacts: number): string {
  return `(${r.zipf(key, salt, contacts)}::bigint * ${int(SCATTER_PRIME)} % ${int(contacts)} + 1)`;
}

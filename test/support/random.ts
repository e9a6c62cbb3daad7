// A small seeded PRNG (mulberry32) so randomized tests replay exactly: the one the bench's
// editing chats are generated from.
export { seededRandom } from "../../src/tools/peer-bench/seeded-random";

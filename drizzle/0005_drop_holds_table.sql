-- Open holds live in the server process now (src/billing/holds.ts); users.held_micros keeps their sum per account.
DROP TABLE `holds`;
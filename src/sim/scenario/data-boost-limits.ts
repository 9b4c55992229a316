/**
 * What Google publishes about Data Boost that the lab models (Google Cloud, "Bigtable Data Boost
 * overview", https://cloud.google.com/bigtable/docs/data-boost-overview, read 2026-12-03):
 * serverless compute for scans "without impacting the performance of the clusters"; not for point
 * reads; no SLA; Enterprise editions only; billed in serverless processing units (SPUs).
 */

/** "You might not read all data that was written in the most recent 35 minutes." */
export const DATA_BOOST_STALENESS_S = 35 * 60;

/** "1,000 SPUs equal one node's performance": an SPU-second buys a thousandth of a node-second. */
export const SPUS_PER_NODE = 1000;

/** "Each request is charged at least 60 SPU-seconds." */
export const MIN_SPU_SECONDS_PER_REQUEST = 60;

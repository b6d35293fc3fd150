"""The run's records: the output dir held open and out of the agent's reach, their digests
(``records.sha256``) checked at the end, the job's file commands kept the harness's, and records
read back from a downloaded artifact, bounded and never extracted."""

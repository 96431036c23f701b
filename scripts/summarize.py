"""Entry script: merge result tables (rules summarize_benchmark and summarize_all)."""

from scievals.common.entry import run
from scievals.common.history import record_history
from scievals.common.tables import concat_tables, write_result_table


def summarize(smk):
    table = concat_tables(smk.input)
    write_result_table(smk.output[0], table)
    if "history_dir" in smk.params.keys():  # noqa: SIM118 (Namedlist: `in` tests values)
        record_history(smk.output[0], smk.params.history_dir)


run(snakemake, summarize)  # noqa: F821  (injected by Snakemake)

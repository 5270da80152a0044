# wrong: every module's reflective dataset gets the feedback on the system's final output (the last module's)
class GEPA:
    def reflective_dataset(self, runs: list[Rollout], module: int) -> list[ReflectionRecord]:
        records = []
        for run in runs:
            call = next(c for c in run.trace.calls if c.module == module)
            records.append(ReflectionRecord(call.input, call.output, run.feedback.module_feedback[-1]))
        return records

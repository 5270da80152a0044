# wrong: the reflective dataset holds the system's input and final output instead of the module's
class GEPA:
    def reflective_dataset(self, runs: list[Rollout], module: int) -> list[ReflectionRecord]:
        return [ReflectionRecord(run.example.text, run.trace.output, run.feedback.module_feedback[module])
                for run in runs]

# A fixture with f-strings: each judge prompt is returned as an f-string over
# the function's arguments. Our own words.
def get_anscheck_prompt(task, question, answer, response, abstention=False):
    if abstention:
        return f"Refused rightly?\nQ: {question}\nWhy: {answer}\nSaid: {response}\nyes/no"
    if task == 'temporal-reasoning':
        return f"Dates {{loosely}}.\nQ: {question}\nGold: {answer}\nSaid: {response!s}\nyes/no"
    if task == 'knowledge-update':
        return (f"Newest wins.\nQ: {question}\n"
                f"Gold: {answer}\nSaid: {response}\nyes/no")
    if task == 'single-session-preference':
        return f"Personal enough?\nQ: {question}\nRubric: {answer}\nSaid: {response}\nyes/no"
    if task in ('single-session-user', 'single-session-assistant', 'multi-session'):
        return f"Right?\nQ: {question}\nGold: {answer}\nSaid: {response}\nyes/no"
    raise NotImplementedError(task)
